/*
 * Argon2 (RFC 9106) for wasm32 + SIMD128, freestanding: no libc, no allocator, no imports.
 *
 * One instance is meant to be reused: the block array lives in linear memory after a scratch area
 * and memory.grow() only ever enlarges it to the largest request seen, so repeated hashes run in
 * the same pages. Lanes are filled one after another (wasm has no threads here); the result is the
 * same as a parallel fill because a segment only references finished segments of other lanes.
 *
 * ABI (all lengths in bytes, m in KiB):
 *   argon2_scratch(len) -> pointer to >= len bytes (0 if memory can't grow). Write there, back to
 *                          back: password P, salt S, secret K, associated data X. argon2_hash()
 *                          wipes all four once H0 is computed and writes the tag there.
 *   argon2_hash(type, version, m, t, p, pwd_len, salt_len, secret_len, ad_len, tag_len)
 *                       -> 0 or an ARGON2_E_* code (the inputs are left in place on an error).
 * K and X may be empty (length 0); they are capped at ARGON2_MAX_SECRET / ARGON2_MAX_AD bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

#define EXPORT(name) __attribute__((export_name(name)))

enum { ARGON2_D = 0, ARGON2_I = 1, ARGON2_ID = 2 };

enum {
  ARGON2_OK = 0,
  ARGON2_E_TYPE = 1,
  ARGON2_E_VERSION = 2,
  ARGON2_E_MEMORY = 3, /* m < 8p, or m' blocks don't fit a 32-bit address space */
  ARGON2_E_PASSES = 4,
  ARGON2_E_LANES = 5,
  ARGON2_E_SALT = 6,
  ARGON2_E_TAG = 7,
  ARGON2_E_SCRATCH = 8, /* inputs/tag larger than the scratch area argon2_scratch() reserved */
  ARGON2_E_GROW = 9,    /* memory.grow failed */
  ARGON2_E_SECRET = 10, /* secret longer than ARGON2_MAX_SECRET */
  ARGON2_E_AD = 11,     /* associated data longer than ARGON2_MAX_AD */
};

/* RFC 9106 allows up to 2^32 - 1 bytes of each; a pepper-like key and a little context is all
 * anyone passes, and small caps keep the scratch area (and its wipe) small. Mirrored in
 * argon2-wasm.ts. */
#define ARGON2_MAX_SECRET 64u
#define ARGON2_MAX_AD 1024u

#define BLOCK_BYTES 1024u
#define BLOCK_VECS 64u /* 16-byte vectors per block */
#define SYNC_POINTS 4u
#define ADDRESSES_PER_BLOCK 128u
#define WASM_PAGE 65536u

/* A 1 KiB block: 128 little-endian u64 words, which G treats as an 8x8 matrix of 16-byte
 * registers (64 v128). */
typedef struct {
  v128_t v[BLOCK_VECS];
} block;

/* Linker-provided end of static data + stack (--stack-first puts the stack below static data). */
extern unsigned char __heap_base;

static uint32_t scratch_capacity; /* bytes reserved at &__heap_base for P || S || K || X, then tag */
static block zero_block, input_block, address_block;

/* ---------------------------------------------------------------------------------------------
 * Small helpers. Built with -mbulk-memory, so these lower to memory.copy / memory.fill.
 */
static inline void copy_bytes(void *dst, const void *src, size_t n) { __builtin_memcpy(dst, src, n); }
static inline void fill_zero(void *dst, size_t n) { __builtin_memset(dst, 0, n); }

/* Stores that the optimizer must not drop: used to wipe the password and H0 after use. */
static void wipe(void *dst, size_t n) {
  __builtin_memset(dst, 0, n);
  __asm__ __volatile__("" : : "r"(dst) : "memory");
}

static inline void store32le(uint8_t *p, uint32_t v) { copy_bytes(p, &v, 4); } /* wasm is LE */

static inline uint64_t load64le(const uint8_t *p) {
  uint64_t v;
  copy_bytes(&v, p, 8);
  return v;
}

/* ---------------------------------------------------------------------------------------------
 * BLAKE2b (RFC 7693), unkeyed, scalar. It only runs for H0, the 2p first blocks and the tag
 * (a few dozen compressions per hash), so SIMD here would not show in any measurement.
 */
static const uint64_t blake2b_iv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

typedef struct {
  uint64_t h[8];
  uint64_t counter; /* bytes compressed so far; inputs here never approach 2^64 */
  uint8_t buf[128];
  uint32_t buf_len;
  uint32_t out_len;
} blake2b_state;

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

#define B2B_G(a, b, c, d, x, y)      \
  do {                               \
    a = a + b + (x);                 \
    d = rotr64(d ^ a, 32);           \
    c = c + d;                       \
    b = rotr64(b ^ c, 24);           \
    a = a + b + (y);                 \
    d = rotr64(d ^ a, 16);           \
    c = c + d;                       \
    b = rotr64(b ^ c, 63);           \
  } while (0)

static void blake2b_compress(blake2b_state *s, const uint8_t *block_bytes, int last) {
  uint64_t m[16], v[16];
  for (unsigned i = 0; i < 16; i++) m[i] = load64le(block_bytes + 8 * i);
  for (unsigned i = 0; i < 8; i++) {
    v[i] = s->h[i];
    v[i + 8] = blake2b_iv[i];
  }
  v[12] ^= s->counter;
  if (last) v[14] = ~v[14];
  for (unsigned r = 0; r < 12; r++) {
    const uint8_t *sg = blake2b_sigma[r];
    B2B_G(v[0], v[4], v[8], v[12], m[sg[0]], m[sg[1]]);
    B2B_G(v[1], v[5], v[9], v[13], m[sg[2]], m[sg[3]]);
    B2B_G(v[2], v[6], v[10], v[14], m[sg[4]], m[sg[5]]);
    B2B_G(v[3], v[7], v[11], v[15], m[sg[6]], m[sg[7]]);
    B2B_G(v[0], v[5], v[10], v[15], m[sg[8]], m[sg[9]]);
    B2B_G(v[1], v[6], v[11], v[12], m[sg[10]], m[sg[11]]);
    B2B_G(v[2], v[7], v[8], v[13], m[sg[12]], m[sg[13]]);
    B2B_G(v[3], v[4], v[9], v[14], m[sg[14]], m[sg[15]]);
  }
  for (unsigned i = 0; i < 8; i++) s->h[i] ^= v[i] ^ v[i + 8];
  /* With clang -O3 the rounds unroll and m, v stay in wasm locals, not in linear memory: nothing
   * to wipe. test/argon2-wasm.test.ts scans the whole memory for leftovers of P and K. */
}

static void blake2b_init(blake2b_state *s, uint32_t out_len) {
  for (unsigned i = 0; i < 8; i++) s->h[i] = blake2b_iv[i];
  s->h[0] ^= 0x01010000u ^ out_len; /* depth 1, fanout 1, no key, digest length */
  s->counter = 0;
  s->buf_len = 0;
  s->out_len = out_len;
}

static void blake2b_update(blake2b_state *s, const uint8_t *in, uint32_t len) {
  while (len > 0) {
    /* A full buffer is only compressed once more input arrives: the last block needs the final flag. */
    if (s->buf_len == 128) {
      s->counter += 128;
      blake2b_compress(s, s->buf, 0);
      s->buf_len = 0;
    }
    uint32_t n = 128 - s->buf_len;
    if (n > len) n = len;
    copy_bytes(s->buf + s->buf_len, in, n);
    s->buf_len += n;
    in += n;
    len -= n;
  }
}

static void blake2b_update32(blake2b_state *s, uint32_t v) {
  uint8_t b[4];
  store32le(b, v);
  blake2b_update(s, b, 4);
}

static void blake2b_final(blake2b_state *s, uint8_t *out) {
  s->counter += s->buf_len;
  fill_zero(s->buf + s->buf_len, 128 - s->buf_len);
  blake2b_compress(s, s->buf, 1);
  copy_bytes(out, s->h, s->out_len);
  wipe(s, sizeof *s);
}

/* H' (RFC 9106 §3.3): BLAKE2b stretched to any output length; for long outputs it chains 64-byte
 * digests and keeps the first half of each. */
static void blake2b_long(uint8_t *out, uint32_t out_len, const uint8_t *in, uint32_t in_len) {
  blake2b_state s;
  if (out_len <= 64) {
    blake2b_init(&s, out_len);
    blake2b_update32(&s, out_len);
    blake2b_update(&s, in, in_len);
    blake2b_final(&s, out);
    return;
  }
  uint8_t v[64];
  blake2b_init(&s, 64);
  blake2b_update32(&s, out_len);
  blake2b_update(&s, in, in_len);
  blake2b_final(&s, v);
  copy_bytes(out, v, 32);
  out += 32;
  uint32_t remaining = out_len - 32;
  while (remaining > 64) {
    blake2b_init(&s, 64);
    blake2b_update(&s, v, 64);
    blake2b_final(&s, v);
    copy_bytes(out, v, 32);
    out += 32;
    remaining -= 32;
  }
  blake2b_init(&s, remaining);
  blake2b_update(&s, v, 64);
  blake2b_final(&s, out);
  wipe(v, sizeof v);
}

/* ---------------------------------------------------------------------------------------------
 * Compression function G (RFC 9106 §3.5-3.6) on SIMD128: each v128 holds two u64 words, so a
 * permutation P over 8 registers runs its 8 GB calls as 4 pairs of 2-wide ones.
 */

/* BlaMka: x + y + 2 * lo32(x) * lo32(y), for two pairs of vectors at once (x0,y0) and (x1,y1).
 * wasm has no u32xu32->u64 multiply of lanes 0 and 2 (x64's pmuludq); extmul multiplies lanes
 * 0,1 or 2,3. One shuffle per operand gathers the four low halves, then extmul_low/high give the
 * products, so both pairs share the gathering shuffles. */
#define BLAMKA2(x0, y0, x1, y1)                                           \
  do {                                                                    \
    v128_t xl = wasm_i32x4_shuffle(x0, x1, 0, 2, 4, 6);                   \
    v128_t yl = wasm_i32x4_shuffle(y0, y1, 0, 2, 4, 6);                   \
    v128_t p0 = wasm_u64x2_extmul_low_u32x4(xl, yl);                      \
    v128_t p1 = wasm_u64x2_extmul_high_u32x4(xl, yl);                     \
    x0 = wasm_i64x2_add(wasm_i64x2_add(x0, y0), wasm_i64x2_add(p0, p0));  \
    x1 = wasm_i64x2_add(wasm_i64x2_add(x1, y1), wasm_i64x2_add(p1, p1));  \
  } while (0)

/* Rotations right. 32 is one pshufd. V8 materialises a pshufb mask from two immediates on
 * every use, so 24 measured faster as two shifts; 16 becomes pshuflw+pshufhw. */
static inline v128_t rotr32(v128_t x) { return wasm_i32x4_shuffle(x, x, 1, 0, 3, 2); }
static inline v128_t rotr24(v128_t x) {
  return wasm_v128_or(wasm_u64x2_shr(x, 24), wasm_i64x2_shl(x, 40));
}
static inline v128_t rotr16(v128_t x) {
  return wasm_i8x16_shuffle(x, x, 2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
}
static inline v128_t rotr63(v128_t x) {
  return wasm_v128_or(wasm_u64x2_shr(x, 63), wasm_i64x2_add(x, x));
}

/* GB() on the lanes of (a0,b0,c0,d0), (a1,b1,c1,d1), (e0,f0,g0,h0) and (e1,f1,g1,h1): eight
 * GB calls of two register sets (two rows or two columns) at once. One set alone is a serial
 * chain through the multiplies; interleaving two gave the CPU enough independent work (~15%). */
#define GB4X2(a0, b0, c0, d0, a1, b1, c1, d1, e0, f0, g0, h0, e1, f1, g1, h1) \
  do {                                      \
    BLAMKA2(a0, b0, a1, b1);                \
    BLAMKA2(e0, f0, e1, f1);                \
    d0 = rotr32(wasm_v128_xor(d0, a0));     \
    d1 = rotr32(wasm_v128_xor(d1, a1));     \
    h0 = rotr32(wasm_v128_xor(h0, e0));     \
    h1 = rotr32(wasm_v128_xor(h1, e1));     \
    BLAMKA2(c0, d0, c1, d1);                \
    BLAMKA2(g0, h0, g1, h1);                \
    b0 = rotr24(wasm_v128_xor(b0, c0));     \
    b1 = rotr24(wasm_v128_xor(b1, c1));     \
    f0 = rotr24(wasm_v128_xor(f0, g0));     \
    f1 = rotr24(wasm_v128_xor(f1, g1));     \
    BLAMKA2(a0, b0, a1, b1);                \
    BLAMKA2(e0, f0, e1, f1);                \
    d0 = rotr16(wasm_v128_xor(d0, a0));     \
    d1 = rotr16(wasm_v128_xor(d1, a1));     \
    h0 = rotr16(wasm_v128_xor(h0, e0));     \
    h1 = rotr16(wasm_v128_xor(h1, e1));     \
    BLAMKA2(c0, d0, c1, d1);                \
    BLAMKA2(g0, h0, g1, h1);                \
    b0 = rotr63(wasm_v128_xor(b0, c0));     \
    b1 = rotr63(wasm_v128_xor(b1, c1));     \
    f0 = rotr63(wasm_v128_xor(f0, g0));     \
    f1 = rotr63(wasm_v128_xor(f1, g1));     \
  } while (0)

/* Rotate b, c, d of one register set so the diagonals line up as columns, and back. With
 * a0=(v0,v1) a1=(v2,v3) b0=(v4,v5) .. d1=(v14,v15), diagonal GB(v0,v5,v10,v15) etc. become
 * lanes of (a0, (v5,v6), (v10,v11), (v15,v12)) and (a1, (v7,v4), (v8,v9), (v13,v14)). */
#define DIAGONALIZE(b0, b1, c0, c1, d0, d1)                 \
  do {                                                      \
    v128_t t0 = wasm_i64x2_shuffle(b0, b1, 1, 2);           \
    v128_t t1 = wasm_i64x2_shuffle(b1, b0, 1, 2);           \
    b0 = t0;                                                \
    b1 = t1;                                                \
    t0 = c0;                                                \
    c0 = c1;                                                \
    c1 = t0;                                                \
    t0 = wasm_i64x2_shuffle(d1, d0, 1, 2);                  \
    t1 = wasm_i64x2_shuffle(d0, d1, 1, 2);                  \
    d0 = t0;                                                \
    d1 = t1;                                                \
  } while (0)

#define UNDIAGONALIZE(b0, b1, c0, c1, d0, d1)               \
  do {                                                      \
    v128_t t0 = wasm_i64x2_shuffle(b1, b0, 1, 2);           \
    v128_t t1 = wasm_i64x2_shuffle(b0, b1, 1, 2);           \
    b0 = t0;                                                \
    b1 = t1;                                                \
    t0 = c0;                                                \
    c0 = c1;                                                \
    c1 = t0;                                                \
    t0 = wasm_i64x2_shuffle(d0, d1, 1, 2);                  \
    t1 = wasm_i64x2_shuffle(d1, d0, 1, 2);                  \
    d0 = t0;                                                \
    d1 = t1;                                                \
  } while (0)

/* P (a BLAKE2b round without message words) over two register sets at once:
 * (v0..v15) = x0..x7 and y0..y7, each xi holding two consecutive u64 words. */
#define PERMUTE_X2(x0, x1, x2, x3, x4, x5, x6, x7, y0, y1, y2, y3, y4, y5, y6, y7)   \
  do {                                                                             \
    GB4X2(x0, x2, x4, x6, x1, x3, x5, x7, y0, y2, y4, y6, y1, y3, y5, y7);          \
    DIAGONALIZE(x2, x3, x4, x5, x6, x7);                                           \
    DIAGONALIZE(y2, y3, y4, y5, y6, y7);                                           \
    GB4X2(x0, x2, x4, x6, x1, x3, x5, x7, y0, y2, y4, y6, y1, y3, y5, y7);          \
    UNDIAGONALIZE(x2, x3, x4, x5, x6, x7);                                         \
    UNDIAGONALIZE(y2, y3, y4, y5, y6, y7);                                         \
  } while (0)

/* next = G(prev, ref), or G(prev, ref) XOR next for v1.3 passes after the first.
 * G(X, Y) = P_columns(P_rows(R)) XOR R with R = X XOR Y. Rows are permuted as they are loaded
 * and columns XORed as they are stored, two at a time (see GB4X2), to keep memory passes few. */
static void fill_block(const block *prev, const block *ref, block *next, int with_xor) {
  block r, z; /* r: the feed-forward term (R, or R XOR next); z: P_rows(R) */
  for (unsigned i = 0; i < 8; i += 2) { /* rows i and i+1: registers 8i .. 8i+15 */
    v128_t q[16];
    for (unsigned k = 0; k < 16; k++) {
      q[k] = wasm_v128_xor(prev->v[8 * i + k], ref->v[8 * i + k]);
      r.v[8 * i + k] = with_xor ? wasm_v128_xor(q[k], next->v[8 * i + k]) : q[k];
    }
    PERMUTE_X2(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7],
               q[8], q[9], q[10], q[11], q[12], q[13], q[14], q[15]);
    for (unsigned k = 0; k < 16; k++) z.v[8 * i + k] = q[k];
  }
  for (unsigned i = 0; i < 8; i += 2) { /* columns i and i+1: registers i, 8+i, .. 56+i (+1) */
    v128_t q[16];
    for (unsigned k = 0; k < 8; k++) {
      q[k] = z.v[8 * k + i];
      q[8 + k] = z.v[8 * k + i + 1];
    }
    PERMUTE_X2(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7],
               q[8], q[9], q[10], q[11], q[12], q[13], q[14], q[15]);
    for (unsigned k = 0; k < 8; k++) {
      next->v[8 * k + i] = wasm_v128_xor(q[k], r.v[8 * k + i]);
      next->v[8 * k + i + 1] = wasm_v128_xor(q[8 + k], r.v[8 * k + i + 1]);
    }
  }
}

/* ---------------------------------------------------------------------------------------------
 * Memory filling (RFC 9106 §3.2-3.4).
 */
typedef struct {
  block *blocks;
  uint32_t type, version, passes, lanes;
  uint32_t lane_length, segment_length, block_count; /* block_count = m' */
} instance;

/* Refill the data-independent address block: G(0, G(0, Z || counter || 0...)). */
static void next_addresses(void) {
  ((uint64_t *)&input_block)[6]++;
  fill_block(&zero_block, &input_block, &address_block, 0);
  fill_block(&zero_block, &address_block, &address_block, 0);
}

/* Map J1 to a column of the reference lane (RFC 9106 §3.4.2): the candidate window W, then a
 * quadratic bias toward recent blocks. */
static uint32_t reference_index(const instance *in, uint32_t pass, uint32_t slice, uint32_t index,
                                uint32_t j1, int same_lane) {
  uint32_t area;
  if (pass == 0) {
    if (slice == 0) {
      area = index - 1; /* only this segment so far; the previous block is excluded */
    } else if (same_lane) {
      area = slice * in->segment_length + index - 1;
    } else {
      /* finished segments of the other lane; its last block only once this one has moved on */
      area = slice * in->segment_length - (index == 0 ? 1 : 0);
    }
  } else {
    if (same_lane) {
      area = in->lane_length - in->segment_length + index - 1;
    } else {
      area = in->lane_length - in->segment_length - (index == 0 ? 1 : 0);
    }
  }
  uint64_t x = ((uint64_t)j1 * j1) >> 32;
  uint32_t relative = area - 1 - (uint32_t)(((uint64_t)area * x) >> 32);
  /* In later passes W starts right after the current segment (wrapping around the lane). */
  uint32_t start = (pass != 0 && slice != SYNC_POINTS - 1) ? (slice + 1) * in->segment_length : 0;
  uint32_t column = start + relative; /* both < lane_length: a subtraction replaces the modulo */
  return column >= in->lane_length ? column - in->lane_length : column;
}

static void fill_segment(const instance *in, uint32_t pass, uint32_t slice, uint32_t lane) {
  int independent =
      in->type == ARGON2_I || (in->type == ARGON2_ID && pass == 0 && slice < SYNC_POINTS / 2);
  uint32_t start = (pass == 0 && slice == 0) ? 2 : 0; /* blocks 0 and 1 come from H' */

  if (independent) {
    uint64_t *w = (uint64_t *)&input_block;
    fill_zero(&input_block, sizeof input_block);
    w[0] = pass;
    w[1] = lane;
    w[2] = slice;
    w[3] = in->block_count;
    w[4] = in->passes;
    w[5] = in->type;
    /* The very first segment starts at index 2, past the refill at i % 128 == 0 below, so its
     * first address block (counter 1; addresses 0 and 1 go unused) is made here. */
    if (start != 0) next_addresses();
  }

  block *lane_base = in->blocks + (size_t)lane * in->lane_length;
  uint32_t column = slice * in->segment_length + start;
  block *prev = lane_base + (column == 0 ? in->lane_length - 1 : column - 1);

  for (uint32_t i = start; i < in->segment_length; i++, column++) {
    uint64_t pseudo_random;
    if (independent) {
      if (i % ADDRESSES_PER_BLOCK == 0) next_addresses();
      pseudo_random = ((const uint64_t *)&address_block)[i % ADDRESSES_PER_BLOCK];
    } else {
      pseudo_random = ((const uint64_t *)prev)[0];
    }
    uint32_t ref_lane = (pass == 0 && slice == 0) || in->lanes == 1
                            ? lane
                            : (uint32_t)(pseudo_random >> 32) % in->lanes;
    uint32_t ref_column = reference_index(in, pass, slice, i, (uint32_t)pseudo_random, ref_lane == lane);
    const block *ref = in->blocks + (size_t)ref_lane * in->lane_length + ref_column;
    block *cur = lane_base + column;
    /* v1.0 overwrites blocks in later passes; v1.3 XORs into them. */
    fill_block(prev, ref, cur, in->version == 0x13 && pass != 0);
    prev = cur;
  }
}

/* Make linear memory at least `end` bytes long. Returns 0 on failure. */
static int ensure_memory(uint64_t end) {
  uint64_t have = (uint64_t)__builtin_wasm_memory_size(0) * WASM_PAGE;
  if (end <= have) return 1;
  uint64_t pages = (end - have + WASM_PAGE - 1) / WASM_PAGE;
  return __builtin_wasm_memory_grow(0, (size_t)pages) != (size_t)-1;
}

static inline uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

static uint64_t blocks_offset(void) { return align_up((uintptr_t)&__heap_base + scratch_capacity, 64); }

EXPORT("argon2_scratch")
uint8_t *argon2_scratch(uint32_t len) {
  if (len > scratch_capacity) {
    if (!ensure_memory((uint64_t)(uintptr_t)&__heap_base + len)) return 0;
    scratch_capacity = len;
  }
  return &__heap_base;
}

EXPORT("argon2_hash")
uint32_t argon2_hash(uint32_t type, uint32_t version, uint32_t m, uint32_t t, uint32_t p,
                     uint32_t pwd_len, uint32_t salt_len, uint32_t secret_len, uint32_t ad_len,
                     uint32_t tag_len) {
  if (type > ARGON2_ID) return ARGON2_E_TYPE;
  if (version != 0x10 && version != 0x13) return ARGON2_E_VERSION;
  if (p < 1 || p > 0xFFFFFF) return ARGON2_E_LANES;
  if (t < 1) return ARGON2_E_PASSES;
  if (m < 8 * p) return ARGON2_E_MEMORY;
  if (salt_len < 8) return ARGON2_E_SALT;
  if (tag_len < 4) return ARGON2_E_TAG;
  if (secret_len > ARGON2_MAX_SECRET) return ARGON2_E_SECRET;
  if (ad_len > ARGON2_MAX_AD) return ARGON2_E_AD;
  uint64_t in_len = (uint64_t)pwd_len + salt_len + secret_len + ad_len;
  if (in_len > scratch_capacity || tag_len > scratch_capacity) return ARGON2_E_SCRATCH;

  instance in;
  in.type = type;
  in.version = version;
  in.passes = t;
  in.lanes = p;
  in.segment_length = m / (SYNC_POINTS * p); /* m' = 4p * floor(m / 4p) */
  in.lane_length = in.segment_length * SYNC_POINTS;
  in.block_count = in.lane_length * p;

  uint64_t base = blocks_offset();
  uint64_t end = base + (uint64_t)in.block_count * BLOCK_BYTES;
  if (end > 0xFFFFFFFFull) return ARGON2_E_MEMORY; /* block pointers are 32-bit */
  if (!ensure_memory(end)) return ARGON2_E_GROW;
  in.blocks = (block *)(uintptr_t)base;

  uint8_t *scratch = &__heap_base;
  const uint8_t *pwd = scratch;
  const uint8_t *salt = pwd + pwd_len;
  const uint8_t *secret = salt + salt_len;
  const uint8_t *ad = secret + secret_len;

  /* H0 = H^64(p, T, m, t, v, y, |P|, P, |S|, S, |K|, K, |X|, X), followed by 8 bytes of room for
   * the (block index, lane) suffix that H' takes when seeding the first two blocks. */
  uint8_t seed[72];
  blake2b_state s;
  blake2b_init(&s, 64);
  blake2b_update32(&s, p);
  blake2b_update32(&s, tag_len);
  blake2b_update32(&s, m);
  blake2b_update32(&s, t);
  blake2b_update32(&s, version);
  blake2b_update32(&s, type);
  blake2b_update32(&s, pwd_len);
  blake2b_update(&s, pwd, pwd_len);
  blake2b_update32(&s, salt_len);
  blake2b_update(&s, salt, salt_len);
  blake2b_update32(&s, secret_len);
  blake2b_update(&s, secret, secret_len);
  blake2b_update32(&s, ad_len);
  blake2b_update(&s, ad, ad_len);
  blake2b_final(&s, seed);
  wipe(scratch, (size_t)in_len); /* P and K (and S, X) are no longer needed */

  for (uint32_t lane = 0; lane < p; lane++) {
    for (uint32_t j = 0; j < 2; j++) {
      store32le(seed + 64, j);
      store32le(seed + 68, lane);
      blake2b_long((uint8_t *)(in.blocks + (size_t)lane * in.lane_length + j), BLOCK_BYTES, seed,
                   sizeof seed);
    }
  }
  wipe(seed, sizeof seed);

  for (uint32_t pass = 0; pass < t; pass++) {
    for (uint32_t slice = 0; slice < SYNC_POINTS; slice++) {
      for (uint32_t lane = 0; lane < p; lane++) fill_segment(&in, pass, slice, lane);
    }
  }

  /* Tag = H'(XOR of every lane's last block). */
  block *final_block = in.blocks + in.lane_length - 1;
  for (uint32_t lane = 1; lane < p; lane++) {
    const block *last = in.blocks + (size_t)lane * in.lane_length + in.lane_length - 1;
    for (unsigned i = 0; i < BLOCK_VECS; i++)
      final_block->v[i] = wasm_v128_xor(final_block->v[i], last->v[i]);
  }
  blake2b_long(scratch, tag_len, (const uint8_t *)final_block, BLOCK_BYTES);
  return ARGON2_OK;
}
