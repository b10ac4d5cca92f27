import { expect } from 'chai';
import { printableText } from '../../../src/domain/printable-text.js';

describe('printableText (src/domain/printable-text.ts)', () => {
  it('when text holds C0, DEL, C1, bidirectional, format or line-separator characters, then each is a \\u escape', () => {
    expect(
      printableText(
        'a\u001b]0;X\u0007\r\n\u007f\u0085\u009b\u202E\u2066\u200E\u061C\u200B\uFEFF\u2028',
      ),
    ).to.equal(
      'a\\u001B]0;X\\u0007\\u000D\\u000A\\u007F\\u0085\\u009B\\u202E\\u2066\\u200E\\u061C\\u200B\\uFEFF\\u2028',
    );
  });

  it('when text holds an astral format character or an unpaired surrogate, then its UTF-16 units are escaped', () => {
    expect(printableText('\u{E0001}x\ud800')).to.equal('\\uDB40\\uDC01x\\uD800');
  });

  it('when text is printable in any script, with a backslash, then it is kept as it is', () => {
    const text = 'Zürich 🌵 植物 עברית \\u001b "quoted"';
    expect(printableText(text)).to.equal(text);
  });

  it('when JSON text is escaped, then it parses to the same value', () => {
    const value = { tenant: 'a\u0085\u202Eb', n: '\u{E0001}' };
    expect(JSON.parse(printableText(JSON.stringify(value)))).to.deep.equal(value);
  });
});
