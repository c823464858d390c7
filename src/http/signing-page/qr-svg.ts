import QRCode from 'qrcode';

/**
 * A QR code as the outline of its dark modules: an SVG path (one rectangle per run of
 * dark modules in a row) in a square of `size` modules, drawn with a quiet zone of four
 * modules around it. The signing page puts it in an inline <svg>, and its script swaps
 * the path each second for the next animated BankID code, so no markup is ever built
 * in the browser. The matrix comes from the `qrcode` package.
 */
export interface QrOutline {
  /** Modules on a side, without the quiet zone. */
  readonly size: number;
  /** The `d` of a path in the square 0..size. */
  readonly path: string;
}

export const QUIET_ZONE = 4;

export function qrOutline(data: string): QrOutline {
  const { modules } = QRCode.create(data, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const parts: string[] = [];
  for (let y = 0; y < size; y += 1) {
    let x = 0;
    while (x < size) {
      if (!modules.get(y, x)) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < size && modules.get(y, x)) x += 1;
      parts.push(`M${start} ${y}h${x - start}v1h-${x - start}z`);
    }
  }
  return { size, path: parts.join('') };
}

/** The SVG's viewBox for a code of `size` modules, quiet zone included. */
export function qrViewBox(size: number): string {
  return `-${QUIET_ZONE} -${QUIET_ZONE} ${size + 2 * QUIET_ZONE} ${size + 2 * QUIET_ZONE}`;
}
