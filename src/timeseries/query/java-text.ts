/**
 * Java's text for numbers, where KairosDB's messages show it: the NumberFormatException messages of
 * Double.parseDouble / Long.parseLong (reference §3.6: `percentile multiple points`, `For input string: "abc"`),
 * and Double.toString (the `<p> is not in [0..1]` message of percentile, §4.6).
 */

const DECIMAL = /^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)$/;
const HEX = /^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?$/;

/** Double.parseDouble: the value, or the exception message it would throw. */
export function parseJavaDouble(text: string): { value: number } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { error: 'empty String' };
  if (DECIMAL.test(trimmed)) return { value: Number(trimmed.replace(/[fFdD]$/, '')) };
  if (HEX.test(trimmed)) return { value: parseHexDouble(trimmed) };
  // Java's FloatingDecimal stops at a second '.' among the digits with this message.
  if (/^[+-]?\d*\.\d*\./.test(trimmed)) return { error: 'multiple points' };
  return { error: `For input string: "${trimmed}"` };
}

/** Long.parseLong / Integer.parseInt: an optional sign and decimal digits only. */
export function parseJavaInteger(text: string): { value: number } | { error: string } {
  if (!/^[+-]?\d+$/.test(text)) return { error: `For input string: "${text}"` };
  return { value: Number(text) };
}

function parseHexDouble(text: string): number {
  const negative = text.startsWith('-');
  const body = text.replace(/^[+-]?0[xX]/, '').replace(/[fFdD]$/, '');
  const [mantissa, exponent] = body.split(/[pP]/);
  const [whole, fraction = ''] = mantissa.split('.');
  const value = parseInt(whole || '0', 16) + (fraction === '' ? 0 : parseInt(fraction, 16) / 16 ** fraction.length);
  const result = value * 2 ** Number(exponent);
  return negative ? -result : result;
}

/** Double.toString: `2.0`, `0.5`, `1.0E7`, `1.0E-4`, `NaN`, `Infinity`. */
export function javaDoubleToString(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    const text = String(value);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa, exponent] = value.toExponential().split('e');
  const digits = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return `${digits}E${exponent.replace('+', '')}`;
}
