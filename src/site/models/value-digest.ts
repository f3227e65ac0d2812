// A value fed into a hash without writing it as JSON text first.
//
// A page's model is digested to tell whether the page changed (earlier-
// pages.ts). Fed as the JSON text of each talk, the text was made and then
// copied again: JSON.stringify returns a string built of many pieces, which
// the hash must first make into one. Walked here instead, a string the model
// holds (most of its bytes, texts read from `.sd`) is hashed where it lies,
// and the rest is a few bytes of framing in a buffer (bench/results/measurements-behind-choices.md).
//
// The form tells any two values apart whose JSON texts differ, and only
// those: it is the JSON value model (what JSON.stringify keeps: toJSON,
// keys in their order, a key whose value is undefined or a function left
// out, such an item of a list written as null, a number that is not finite
// as null), with a Map taken as the list of its entries, written in a code
// that reads back one way: each token starts with its own byte, and a
// string is its length in characters, then its characters, one byte each
// when all are below 256 and two bytes each otherwise.

import type crypto from 'node:crypto';

const BUFFER_BYTES = 1 << 16;
// Strings longer than this are encoded by Buffer.write, shorter ones (most keys and names) a character at a time.
const SHORT = 32;
const BEYOND_ONE_BYTE = /[^\x00-\xff]/;

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_LIST = 0x5b; // [
const CLOSE_LIST = 0x5d; // ]
const NARROW = 0x73; // s: a string of one-byte characters
const WIDE = 0x77; // w: a string with a character beyond one byte, two bytes each
const NUMBER = 0x6e; // n
const TRUE = 0x74; // t
const FALSE = 0x66; // f
const NULL = 0x7a; // z
const END = 0x3b; // ;

export class ValueDigest {
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;

  constructor(private readonly hash: crypto.Hash) {}

  /** `key` is the value's name in its object or its place in its list, for a toJSON method. */
  value(value: unknown, key: string | number = ''): void {
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return this.byte(NULL);
      this.byte(NUMBER);
      this.ascii(String(value));
      return this.byte(END);
    }
    if (typeof value === 'boolean') return this.byte(value ? TRUE : FALSE);
    if (value === null || typeof value !== 'object') return this.byte(NULL);
    if (Array.isArray(value)) return this.list(value);
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return this.value((value as { toJSON(key: string): unknown }).toJSON(String(key)));
    if (value instanceof Map) return this.list([...value]);
    this.byte(OPEN_OBJECT);
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      const item = record[name];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      this.text(name);
      this.value(item, name);
    }
    this.byte(CLOSE_OBJECT);
  }

  text(value: string): void {
    // A short one is copied a character at a time, and found wide on the way.
    if (value.length <= SHORT) {
      if (BUFFER_BYTES - this.used < 2 * SHORT + 8) this.flush();
      const start = this.used;
      this.buffer[this.used++] = NARROW;
      this.ascii(String(value.length));
      this.buffer[this.used++] = END;
      for (let index = 0; index < value.length; index++) {
        const code = value.charCodeAt(index);
        if (code > 0xff) {
          this.used = start;
          return this.wide(value);
        }
        this.buffer[this.used++] = code;
      }
      return;
    }
    if (BEYOND_ONE_BYTE.test(value)) return this.wide(value);
    this.frame(NARROW, value.length);
    this.bytes(value, value.length, 'latin1');
  }

  private wide(value: string): void {
    this.frame(WIDE, value.length);
    this.bytes(value, value.length * 2, 'utf16le');
  }

  private frame(tag: number, length: number): void {
    this.byte(tag);
    this.ascii(String(length));
    this.byte(END);
  }

  private bytes(value: string, bytes: number, encoding: 'latin1' | 'utf16le'): void {
    if (bytes > BUFFER_BYTES - this.used) {
      this.flush();
      if (bytes > BUFFER_BYTES) {
        this.hash.update(value, encoding);
        return;
      }
    }
    this.used += this.buffer.write(value, this.used, encoding);
  }

  /** Hands what is buffered to the hash; call before the hash's digest. */
  flush(): void {
    if (this.used > 0) this.hash.update(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private list(items: readonly unknown[]): void {
    this.byte(OPEN_LIST);
    for (let index = 0; index < items.length; index++) this.value(items[index], index);
    this.byte(CLOSE_LIST);
  }

  private byte(byte: number): void {
    if (this.used === BUFFER_BYTES) this.flush();
    this.buffer[this.used++] = byte;
  }

  // Digits, a sign, a point, an exponent: characters below 128.
  private ascii(text: string): void {
    if (text.length > BUFFER_BYTES - this.used) this.flush();
    for (let index = 0; index < text.length; index++) this.buffer[this.used++] = text.charCodeAt(index);
  }
}
