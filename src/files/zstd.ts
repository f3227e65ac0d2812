// The zstd binding (zstd-napi's Node-API module, zstd 1.5.7), loaded in this
// one place, and the one loop that decompresses a zstd stream with it.
//
// The binding is loaded directly rather than through zstd-napi's wrapper
// classes: the archive drives its contexts one buffer at a time, both to
// compress frame by frame (bundle/frame-compressor.ts) and to decompress
// with bounded memory (below).

import { createRequire } from 'node:module';
import type * as Zstd from 'zstd-napi/binding.js';

const require = createRequire(import.meta.url);
export const zstd = require('zstd-napi/binding.js') as typeof Zstd;

/** The largest zstd window accepted, as the zstd command's own default limit: 128 MiB. */
const WINDOW_LOG_MAX = 27;

/**
 * A zstd stream decompressed as its compressed bytes are given, each piece
 * handed on before the next is made, in one reused buffer: whoever takes a
 * piece copies what it keeps. The context is driven one output buffer at a
 * time, since decompressing each input chunk whole would hold all it expands
 * to, gigabytes for a run of zeros.
 */
export class ZstdDecompression {
  private readonly context = new zstd.DCtx();
  private readonly output = Buffer.allocUnsafe(zstd.dStreamOutSize());
  private inFrame = false;

  constructor() {
    this.context.setParameter(zstd.DParameter.windowLogMax, WINDOW_LOG_MAX);
  }

  /** A good size for the compressed chunks given to `push`. */
  static readonly INPUT_BYTES = zstd.dStreamInSize();

  /**
   * Decompresses `input`, handing each piece to `onPiece`; stops early, and
   * returns false, once `onPiece` returns false. Throws on damaged input.
   */
  push(input: Buffer, onPiece: (piece: Buffer) => boolean | void): boolean {
    for (;;) {
      const [left, produced, consumed] = this.context.decompressStream(this.output, input);
      if (produced > 0 && onPiece(this.output.subarray(0, produced)) === false) return false;
      input = input.subarray(consumed);
      // Done with this chunk once it is consumed and the output was not full (more may be waiting otherwise).
      if (input.length === 0 && (produced < this.output.length || left === 0)) {
        this.inFrame = left !== 0;
        return true;
      }
      if (produced === 0 && consumed === 0) throw new Error('the decompressor takes nothing more of this input');
    }
  }

  /** Throws when the stream given so far ends in the middle of a frame. */
  end(): void {
    if (this.inFrame) throw new Error('the stream ends in the middle of a compressed frame');
  }
}
