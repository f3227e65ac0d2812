// Which media the site shows as images (models/images.ts): a PNG, JPEG, GIF
// or WebP image whose bytes begin with the magic number of the type it is
// labelled, with its size read from its header; never an SVG, a page of HTML
// or bytes of another type than the label says, each named with why.

import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gifHeader, jpegHeader, pngImage, webpHeader } from '../../scripts/image-bytes.ts';
import { DISGUISED_IMAGES, FIXTURE_IMAGES } from '../../scripts/write-fixtures.ts';
import type { MediaPart } from '../../src/session-data/format.ts';
import { placeholder } from '../../src/session-data/placeholder.ts';
import { imageOfPart, rasterImage } from '../../src/site/models/images.ts';
import { partView } from '../../src/site/models/parts.ts';

const base64 = (bytes: Buffer | string): string => Buffer.from(bytes).toString('base64');
const sha256 = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');

describe('an image the site shows', () => {
  it('is each raster type by its magic number, named by the SHA-256 of its bytes with its extension, its size from its header', () => {
    const png = pngImage(30, 20, [[0, 0, 0]], () => 0);
    const cases: [Buffer, string, string, number, number][] = [
      [png, 'image/png', 'png', 30, 20],
      [jpegHeader(640, 480), 'image/jpeg', 'jpg', 640, 480],
      [gifHeader(12, 34), 'image/gif', 'gif', 12, 34],
      [webpHeader(123, 45), 'image/webp', 'webp', 123, 45],
    ];
    for (const [bytes, type, extension, width, height] of cases) {
      const image = rasterImage(base64(bytes), type);
      expect(image).toMatchObject({ shown: true, type, file: `images/${sha256(bytes)}.${extension}`, sha256: sha256(bytes), width, height });
      if (image.shown) expect(image.bytes.equals(bytes)).toBe(true);
    }
  });

  it('takes the label in any case, with parameters, and image/jpg for image/jpeg', () => {
    expect(rasterImage(base64(jpegHeader(8, 8)), 'Image/JPG')).toMatchObject({ shown: true, type: 'image/jpeg' });
    expect(rasterImage(base64(gifHeader(8, 8)), 'image/gif; name=x.gif')).toMatchObject({ shown: true, type: 'image/gif' });
  });

  it('is shown without a size when its header cannot be read', () => {
    const cut = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]);
    const image = rasterImage(base64(cut), 'image/jpeg');
    expect(image.shown).toBe(true);
    expect(image).not.toHaveProperty('width');
  });
});

describe('media the site does not show as an image', () => {
  const why = (bytes: Buffer | string, type: string): string | undefined => {
    const image = rasterImage(base64(bytes), type);
    return image.shown ? undefined : image.why;
  };

  it('never shows an SVG or a page of HTML labelled image/png, and says they are markup', () => {
    expect(why(DISGUISED_IMAGES.svg, 'image/png')).toBe('its bytes are not a PNG image but markup (HTML, SVG or XML)');
    expect(why(DISGUISED_IMAGES.html, 'image/png')).toBe('its bytes are not a PNG image but markup (HTML, SVG or XML)');
    // A byte order mark and white space before the markup make no difference.
    expect(why(`\ufeff \n${DISGUISED_IMAGES.svg}`, 'image/gif')).toBe('its bytes are not a GIF image but markup (HTML, SVG or XML)');
  });

  it('never shows an SVG, whatever its bytes, nor any type but PNG, JPEG, GIF and WebP', () => {
    expect(why(DISGUISED_IMAGES.svg, 'image/svg+xml')).toBe('an SVG image is a document that can hold scripts, and the site shows only PNG, JPEG, GIF and WebP images');
    // A real PNG labelled as an SVG is not shown either: the label decides which type the bytes must be.
    expect(why(FIXTURE_IMAGES.diagram, 'image/svg+xml')).toMatch(/^an SVG image/);
    expect(why(DISGUISED_IMAGES.html, 'text/html')).toBe('the site shows only PNG, JPEG, GIF and WebP images');
    expect(why(Buffer.from('%PDF-1.7'), 'application/pdf')).toBe('the site shows only PNG, JPEG, GIF and WebP images');
    expect(why(Buffer.from('BM'), 'image/bmp')).toBe('the site shows only PNG, JPEG, GIF and WebP images');
  });

  it('shows no image whose bytes are another raster type than its label, or no image at all', () => {
    expect(why(jpegHeader(8, 8), 'image/png')).toBe('its bytes are a JPEG image, not the image/png it is labelled');
    expect(why(FIXTURE_IMAGES.diagram, 'image/webp')).toBe('its bytes are a PNG image, not the image/webp it is labelled');
    expect(why(Buffer.alloc(600, 7), 'image/png')).toBe('its bytes are not a PNG image');
    // Magic numbers in full: `RIFF` of a WAVE file is no WebP, `GIF88a` no GIF.
    expect(why(Buffer.from('RIFF\0\0\0\0WAVEfmt '), 'image/webp')).toBe('its bytes are not a WebP image');
    expect(why(Buffer.from('GIF88a'), 'image/gif')).toBe('its bytes are not a GIF image');
  });

  it('shows no image whose data is not base64', () => {
    expect(rasterImage('iVBORw0KGgo=<script>', 'image/png')).toEqual({ shown: false, why: 'its data is not base64' });
    expect(rasterImage('iVBORw0K Ggo=', 'image/png')).toEqual({ shown: false, why: 'its data is not base64' });
    // Groups of four, padded at the end only, by two `=` at most.
    for (const data of ['iVBORw0KGgo', 'iVBORw0KGgo==', 'iVBORw0K=ggo', 'iVBORw0KG===', '=VBORw0KGgo=']) {
      expect(rasterImage(data, 'image/png'), data).toEqual({ shown: false, why: 'its data is not base64' });
    }
    expect(rasterImage('iVBORw0KGg==', 'image/png')).toEqual({ shown: false, why: 'its bytes are not a PNG image' });
  });
});

describe('a medium part as a page shows it', () => {
  const part = (fields: Partial<MediaPart> & Pick<MediaPart, 'state' | 'bytes'>): MediaPart => ({ k: 'media', media_type: 'image/png', ...fields });

  it('is an image file of the site with its size and words for a reader who cannot see it', () => {
    const bytes = FIXTURE_IMAGES.screenshot;
    expect(partView(part({ state: 'available', bytes: bytes.length, data: base64(bytes) }))).toMatchObject({
      kind: 'media',
      label: 'image/png',
      image: { file: `images/${sha256(bytes)}.png`, width: 1200, height: 700, alt: `Image pasted in the prompt, image/png, ${(bytes.length / 1024).toFixed(1)} KB` },
    });
    expect(partView(part({ state: 'available', bytes: bytes.length, data: base64(bytes), of: 'toolu_1' })).image?.alt).toMatch(/^Image returned by the tool, image\/png, /);
  });

  it('says why it is not shown: not held, left out of a redacted export, cut by a redaction, or not an image', () => {
    expect(partView(part({ state: 'unavailable', bytes: 0 }))).toMatchObject({ notShown: 'not held by the source' });
    expect(partView(part({ state: 'redacted', bytes: 2048, removed: 2048, data: placeholder('image', 2048) }))).toMatchObject({ notShown: 'left out of this redacted export, as no rule can read a screenshot for secrets (an export with --keep-images keeps images)' });
    expect(partView(part({ state: 'redacted', bytes: 2048, removed: 2048, media_type: 'application/pdf', data: placeholder('document', 2048) })).notShown).toMatch(/^left out of this redacted export, as no rule can read a document/);
    expect(partView(part({ state: 'redacted', bytes: 2048, removed: 20, data: `iVBORw0KGgo${placeholder('aws', 20)}AAAA` }))).toMatchObject({ notShown: 'a redaction took secrets out of its data' });
    expect(partView(part({ state: 'available', bytes: 100, data: base64(DISGUISED_IMAGES.svg) }))).toMatchObject({ notShown: 'its bytes are not a PNG image but markup (HTML, SVG or XML)' });
    for (const view of [partView(part({ state: 'available', bytes: 100, data: base64(DISGUISED_IMAGES.html) }))]) expect(view).not.toHaveProperty('image');
  });

  it('is decided the same way for the page and for the writer of the image files', () => {
    const data = base64(FIXTURE_IMAGES.diagram);
    const image = imageOfPart(part({ state: 'available', bytes: FIXTURE_IMAGES.diagram.length, data }));
    expect(image.shown && image.file).toBe(partView(part({ state: 'available', bytes: FIXTURE_IMAGES.diagram.length, data })).image?.file);
    // A placeholder that is not a rule of media left out is a redaction of part of the data, never shown.
    expect(imageOfPart(part({ state: 'redacted', bytes: 10, data: placeholder('image', 10) })).shown).toBe(false);
  });
});
