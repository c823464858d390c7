import PDFDocument from 'pdfkit';

/**
 * A plain text PDF (A4, the built-in Helvetica, which covers Swedish letters): a title,
 * then headed sections of lines. Used for product documents in the demo ledger and
 * for receipts. The creation date is fixed by the caller, so the same content gives
 * the same bytes (and the same ETag).
 */
export interface TextPdfSection {
  readonly heading?: string;
  readonly lines: readonly string[];
}

export function renderTextPdf(title: string, sections: readonly TextPdfSection[], createdAt: Date): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pdf = new PDFDocument({ size: 'A4', margin: 56, info: { Title: title, Producer: 'depot-gateway', Creator: 'depot-gateway', CreationDate: createdAt } });
    const chunks: Buffer[] = [];
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
    pdf.font('Helvetica-Bold').fontSize(18).text(title);
    for (const section of sections) {
      pdf.moveDown();
      if (section.heading) pdf.font('Helvetica-Bold').fontSize(12).text(section.heading);
      pdf.font('Helvetica').fontSize(10);
      for (const line of section.lines) pdf.text(line);
    }
    pdf.end();
  });
}
