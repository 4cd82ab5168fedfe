/** Ids of the data-node API (party, market, order, asset, node, public key, resource). */

/**
 * Whether a string can be an id. What can never be one: the empty string, control characters (C0,
 * DEL, C1) and unpaired UTF-16 surrogates (text that is not text). Everything else is: the
 * specification types ids as plain strings, so short names, base64 (`+/=`), upper case and long
 * ids are all ids. The exporter's configuration and its reading of answers share this rule.
 */
export function isId(v: string): boolean {
  if (v === '') return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false; // C0, DEL, C1
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = v.charCodeAt(i + 1); // NaN past the end
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}
