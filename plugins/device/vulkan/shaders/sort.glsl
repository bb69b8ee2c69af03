// The order of ARGSORT and TOP_K, as on the CPU device: by value, ties by lower index, NaN
// larger than every number (last ascending, first descending). A strict total order, so the
// rank of an entry is the number of entries before it.
bool vless(float a, float b) { return !isnan(a) && (isnan(b) || a < b); }
bool sort_before(float a, int ia, float b, int ib, bool desc) {
  if (desc) return vless(b, a) || (!vless(a, b) && ia < ib);
  return vless(a, b) || (!vless(b, a) && ia < ib);
}
