// Text: scikit-learn's HashingVectorizer analysis on the device.
//
// Documents are one buffer of characters, C = unsigned char (ASCII text,
// one byte per character) or unsigned int (UTF-32 code points), with doc
// boundaries given by `starts`, one flag per character position (and one
// past the end) set where a document begins. Every step works in code
// points, as Python's str does; tokens are hashed as the UTF-8 bytes that
// `str.encode("utf-8")` gives, with scikit-learn's MurmurHash3 (x86, 32
// bits, seed 0). Unicode properties come from tables the host builds from
// the running Python's `str` and `unicodedata` (gpuml/feature_extraction/
// _unicode.py): bitmaps over all code points, and a sorted list of the code
// points whose preprocessing (lowercasing, accent stripping) is not the
// identity, with their replacement sequences.

#define SCAN_TILE 2048
#define NO_KEY 0x7fffffffffffffffLL

struct Tables {
    const unsigned int* word;      // bitmap: matches Python's \w
    const unsigned int* space;     // bitmap: matches Python's \s
    const unsigned int* cased;     // bitmap: Unicode Cased (final sigma)
    const unsigned int* ignorable; // bitmap: Case_Ignorable (final sigma)
    const unsigned int* keys;      // code points whose mapping changes them
    const int* map_start;          // their replacement in `pool`
    const unsigned int* pool;
    int n_keys;
    int drop_non_ascii;            // other non-ASCII code points map to nothing
};

// The tables travel as one buffer of 32-bit words: a header of the parts'
// offsets (in words, in the order of the struct), the number of keys and
// the drop_non_ascii flag.
__device__ __forceinline__ Tables load_tables(const unsigned int* buffer)
{
    Tables t;
    t.word = buffer + buffer[0];
    t.space = buffer + buffer[1];
    t.cased = buffer + buffer[2];
    t.ignorable = buffer + buffer[3];
    t.keys = buffer + buffer[4];
    t.map_start = (const int*)(buffer + buffer[5]);
    t.pool = buffer + buffer[6];
    t.n_keys = (int)buffer[7];
    t.drop_non_ascii = (int)buffer[8];
    return t;
}

__device__ __forceinline__ bool bit(const unsigned int* bits, unsigned int cp)
{
    return (bits[cp >> 5] >> (cp & 31)) & 1u;
}

__device__ __forceinline__ unsigned int lower_ascii(unsigned int c, int lower)
{
    return (lower && c >= 'A' && c <= 'Z') ? c + 32 : c;
}

// ASCII characters are looked up by value, which keeps the common case off
// the tables' memory.
__device__ __forceinline__ bool is_word(unsigned int c, const Tables& t)
{
    if (c < 128)
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
               (c >= 'A' && c <= 'Z') || c == '_';
    return bit(t.word, c);
}

__device__ __forceinline__ bool is_space(unsigned int c, const Tables& t)
{
    if (c < 128)
        return c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
    return bit(t.space, c);
}

// ---------------------------------------------------------------- MurmurHash3

// Feed the UTF-8 bytes of code point c to h.byte().
template <typename H>
__device__ __forceinline__ void utf8_bytes(H& h, unsigned int c)
{
    if (c < 0x80) {
        h.byte(c);
    } else if (c < 0x800) {
        h.byte(0xC0 | (c >> 6));
        h.byte(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        h.byte(0xE0 | (c >> 12));
        h.byte(0x80 | ((c >> 6) & 0x3F));
        h.byte(0x80 | (c & 0x3F));
    } else {
        h.byte(0xF0 | (c >> 18));
        h.byte(0x80 | ((c >> 12) & 0x3F));
        h.byte(0x80 | ((c >> 6) & 0x3F));
        h.byte(0x80 | (c & 0x3F));
    }
}

struct Murmur {
    unsigned int h, block, length;
    int fill;

    __device__ void init(unsigned int seed = 0)
    {
        h = seed;
        block = 0;
        length = 0;
        fill = 0;
    }

    __device__ void byte(unsigned int b)
    {
        block |= b << (8 * fill);
        length++;
        if (++fill == 4) {
            unsigned int k = block * 0xcc9e2d51u;
            k = (k << 15) | (k >> 17);
            k *= 0x1b873593u;
            h ^= k;
            h = (h << 13) | (h >> 19);
            h = h * 5 + 0xe6546b64u;
            block = 0;
            fill = 0;
        }
    }

    // The UTF-8 bytes of code point c.
    __device__ void code_point(unsigned int c) { utf8_bytes(*this, c); }

    __device__ int finish()
    {
        unsigned int r = h;
        if (fill) {
            unsigned int k = block * 0xcc9e2d51u;
            k = (k << 15) | (k >> 17);
            k *= 0x1b873593u;
            r ^= k;
        }
        r ^= length;
        r ^= r >> 16;
        r *= 0x85ebca6bu;
        r ^= r >> 13;
        r *= 0xc2b2ae35u;
        r ^= r >> 16;
        return (int)r;
    }
};

// A sorted key: the document in the high 32 bits, then the column, then
// one bit for a negative sign (scikit-learn's FeatureHasher: column
// abs(h) % n_features, with abs(-2**31) taken as 2**31; sign of h).
__device__ __forceinline__ long long hashed_key(int h, long long doc,
                                                long long n_features,
                                                int alternate_sign)
{
    unsigned int magnitude = h < 0 ? 0u - (unsigned int)h : (unsigned int)h;
    long long column = (long long)(magnitude % (unsigned long long)n_features);
    long long negative = (alternate_sign && h < 0) ? 1 : 0;
    return (doc << 32) | (column << 1) | negative;
}

// The last document whose first position is <= position (offsets sorted).
__device__ __forceinline__ long long find_doc(const long long* offsets,
                                              long long n_docs, long long position)
{
    long long lo = 0, hi = n_docs;  // answer in [lo, hi)
    while (hi - lo > 1) {
        long long mid = (lo + hi) / 2;
        if (offsets[mid] <= position)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// Kernels over items (tokens, characters) that need each item's document
// visit them in tiles of DOC_TILE: thread t of a block takes items tile + t,
// tile + t + 256, ... (coalesced), finds the document of its first item by
// binary search and then moves it forward (documents hold many items).
#define DOC_TILE (256 * 16)

// The document holding item i, moving forward from the document `doc` of
// an earlier item (empty documents are stepped over).
__device__ __forceinline__ long long next_doc(const long long* offsets, long long doc,
                                              long long i)
{
    while (offsets[doc + 1] <= i)
        doc++;
    return doc;
}

// for each item i < n, with `doc` its document (declared by the loop),
// visited as DOC_TILE describes; `continue` goes to the next item.
#define FOR_ITEMS_WITH_DOC(i, n, doc, offsets, n_docs)                            \
    for (long long tile_ = (long long)blockIdx.x * DOC_TILE; tile_ < (n);         \
         tile_ += (long long)gridDim.x * DOC_TILE)                                \
        for (long long i = tile_ + threadIdx.x,                                   \
                       doc = find_doc(offsets, n_docs, min(i, (long long)(n) - 1)); \
             i < tile_ + DOC_TILE && i < (n) &&                                   \
             ((doc = next_doc(offsets, doc, i)), true);                           \
             i += blockDim.x)

// ------------------------------------------------------------------- scans

__device__ long long block_exclusive_scan(long long v, long long* total)
{
    __shared__ long long warp_sums[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long x = v;
    for (int d = 1; d < 32; d <<= 1) {
        long long y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d)
            x += y;
    }
    if (lane == 31)
        warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int n_warps = blockDim.x >> 5;
        long long w = lane < n_warps ? warp_sums[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            long long y = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d)
                w += y;
        }
        if (lane < n_warps)
            warp_sums[lane] = w;  // inclusive
    }
    __syncthreads();
    long long before = (warp ? warp_sums[warp - 1] : 0) + x - v;
    *total = warp_sums[(blockDim.x >> 5) - 1];
    __syncthreads();
    return before;
}

// Exclusive scan of n int counts into n + 1 long long offsets, in three
// launches: tile sums, their scan (one block), each tile's scan.
extern "C" __global__ void scan_tile_sums(const int* counts, long long n,
                                          long long* tile_sums)
{
    long long base = (long long)blockIdx.x * SCAN_TILE;
    long long s = 0;
    for (int k = threadIdx.x; k < SCAN_TILE; k += blockDim.x)
        if (base + k < n)
            s += counts[base + k];
    long long total;
    block_exclusive_scan(s, &total);
    if (threadIdx.x == 0)
        tile_sums[blockIdx.x] = total;
}

extern "C" __global__ void scan_tiles(long long* tile_sums, long long n_tiles,
                                      long long* out, long long n)
{
    long long carry = 0;
    for (long long base = 0; base < n_tiles; base += blockDim.x) {
        long long i = base + threadIdx.x;
        long long v = i < n_tiles ? tile_sums[i] : 0;
        long long total;
        long long before = block_exclusive_scan(v, &total);
        if (i < n_tiles)
            tile_sums[i] = carry + before;
        carry += total;
    }
    if (threadIdx.x == 0)
        out[n] = carry;
}

extern "C" __global__ void scan_apply(const int* counts, long long n,
                                      const long long* tile_offsets, long long* out)
{
    const int per_thread = SCAN_TILE / 256;  // launched with 256 threads
    long long base = (long long)blockIdx.x * SCAN_TILE + threadIdx.x * per_thread;
    long long local = 0;
    for (int k = 0; k < per_thread; k++)
        if (base + k < n)
            local += counts[base + k];
    long long total;
    long long running = tile_offsets[blockIdx.x] + block_exclusive_scan(local, &total);
    for (int k = 0; k < per_thread; k++)
        if (base + k < n) {
            out[base + k] = running;
            running += counts[base + k];
        }
}

// out[i] = values[index[i]]
extern "C" __global__ void gather_offsets(const long long* values,
                                          const long long* index, long long n,
                                          long long* out)
{
    GRID_STRIDE(i, n) { out[i] = values[index[i]]; }
}

// starts[offsets[d]] = 1 for every document d (starts zeroed beforehand).
extern "C" __global__ void mark_starts(const long long* offsets, long long n_docs,
                                       unsigned char* starts)
{
    GRID_STRIDE(d, n_docs) { starts[offsets[d]] = 1; }
}

// ----------------------------------------------------------- preprocessing

// The replacement of code point c: `*count` code points from `*seq`; for a
// code point that is not among the keys, c itself (count 1, seq null), or
// nothing (count 0) for non-ASCII ones under drop_non_ascii.
__device__ __forceinline__ void mapping(unsigned int c, const Tables& t,
                                        const unsigned int** seq, int* count)
{
    int lo = 0, hi = t.n_keys;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (t.keys[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t.n_keys && t.keys[lo] == c) {
        *seq = t.pool + t.map_start[lo];
        *count = t.map_start[lo + 1] - t.map_start[lo];
    } else {
        *seq = 0;
        *count = (t.drop_non_ascii && c >= 128) ? 0 : 1;
    }
}

extern "C" __global__ void preprocess_count(const unsigned int* text, long long n,
                                            const unsigned int* tables, int* counts)
{
    Tables t = load_tables(tables);
    GRID_STRIDE(i, n) {
        const unsigned int* seq;
        int count;
        mapping(text[i], t, &seq, &count);
        counts[i] = count;
    }
}

// Python's str.lower() maps capital sigma to final sigma when it follows a
// cased letter and is not followed by one, skipping case-ignorable
// characters both ways (unicodeobject.c, handle_capital_sigma), within the
// document.
__device__ bool final_sigma(const unsigned int* text, long long n,
                            const unsigned char* starts, long long i,
                            const Tables& t)
{
    long long j = i;
    bool found = false;
    while (!starts[j]) {  // j - 1 is in the same document
        unsigned int c = text[--j];
        if (!bit(t.ignorable, c)) {
            found = bit(t.cased, c);
            break;
        }
    }
    if (!found)
        return false;
    for (j = i + 1; j < n && !starts[j]; j++) {
        unsigned int c = text[j];
        if (!bit(t.ignorable, c))
            return !bit(t.cased, c);
    }
    return true;
}

extern "C" __global__ void preprocess_write(const unsigned int* text, long long n,
                                            const unsigned char* starts, const unsigned int* tables,
                                            int lowercase,
                                            const long long* positions,
                                            unsigned int* out)
{
    Tables t = load_tables(tables);
    GRID_STRIDE(i, n) {
        unsigned int c = text[i];
        const unsigned int* seq;
        int count;
        mapping(c, t, &seq, &count);
        long long p = positions[i];
        if (!seq) {
            if (count)
                out[p] = c;
        } else if (lowercase && c == 0x3A3 && count == 1 &&
                   final_sigma(text, n, starts, i, t)) {
            out[p] = 0x3C2;
        } else {
            for (int k = 0; k < count; k++)
                out[p + k] = seq[k];
        }
    }
}

// scikit-learn's char analyzers first replace each run of two or more
// whitespace characters (regex \s\s+) by one space: keep[i] is 0 for the
// second and later characters of such a run.
template <typename C>
__global__ void spaces_count(const C* text, long long n, const unsigned char* starts,
                             const unsigned int* tables, int* keep)
{
    Tables t = load_tables(tables);
    GRID_STRIDE(i, n) {
        keep[i] = !(is_space(text[i], t) && !starts[i] && is_space(text[i - 1], t));
    }
}

template <typename C>
__global__ void spaces_write(const C* text, long long n, const unsigned char* starts,
                             const unsigned int* tables, const long long* positions, C* out)
{
    Tables t = load_tables(tables);
    GRID_STRIDE(i, n) {
        C c = text[i];
        bool space = is_space(c, t);
        if (space && !starts[i] && is_space(text[i - 1], t))
            continue;
        bool run = space && i + 1 < n && !starts[i + 1] && is_space(text[i + 1], t);
        out[positions[i]] = run ? (C)' ' : c;
    }
}

// ---------------------------------------------- cuDF strings (code points)

// cuDF's str.code_points() gives each character's UTF-8 bytes packed into
// one integer, first byte highest ("é", C3 A9, is 0xC3A9). flags[0] = 1 if
// a character is not ASCII, flags[1] = 1 if one is a capital sigma (CE A3).
extern "C" __global__ void packed_utf8_flags(const unsigned int* packed, long long n,
                                             int* flags)
{
    GRID_STRIDE(i, n) {
        unsigned int v = packed[i];
        if (v >= 0x80u)
            flags[0] = 1;
        if (v == 0xCEA3u)
            flags[1] = 1;
    }
}

// The characters as code points (C: unsigned char for ASCII text).
template <typename C>
__global__ void decode_packed_utf8(const unsigned int* packed, long long n, C* out)
{
    GRID_STRIDE(i, n) {
        unsigned int v = packed[i], c;
        if (v < 0x80u)
            c = v;
        else if (v < 0x10000u)  // two bytes: 110xxxxx 10xxxxxx
            c = ((v >> 8) & 0x1Fu) << 6 | (v & 0x3Fu);
        else if (v < 0x1000000u)  // three: 1110xxxx 10xxxxxx 10xxxxxx
            c = ((v >> 16) & 0x0Fu) << 12 | ((v >> 8) & 0x3Fu) << 6 | (v & 0x3Fu);
        else  // four: 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
            c = ((v >> 24) & 0x07u) << 18 | ((v >> 16) & 0x3Fu) << 12 |
                ((v >> 8) & 0x3Fu) << 6 | (v & 0x3Fu);
        out[i] = (C)c;
    }
}

// ------------------------------------------------------------------ tokens

// The end of the word-character run that starts at i (its document's end
// at the latest).
template <typename C>
__device__ __forceinline__ long long word_end(const C* text, long long n,
                                              const unsigned char* starts,
                                              long long i, const Tables& t)
{
    long long j = i + 1;
    while (j < n && !starts[j] && is_word(text[j], t))
        j++;
    return j;
}

// The default token pattern, \b\w\w+\b (or \b\w+\b with min_length 1): a
// token is a maximal run of word characters at least min_length long. Each
// block takes a tile of TOKEN_TILE characters, thread t the characters
// tile + t, tile + t + 256, ... (coalesced); token_tile_counts counts the
// token starts of each tile and, after a scan of those counts,
// token_tile_write writes each tile's tokens in order, ranking the starts
// of each step of 256 characters by warp ballots. Launched with 256
// threads.
#define TOKEN_TILE (256 * 32)

template <typename C>
__device__ __forceinline__ bool token_start(const C* text, long long n,
                                            const unsigned char* starts, long long i,
                                            const Tables& t, int min_length)
{
    if (i >= n || !is_word(text[i], t) || (!starts[i] && is_word(text[i - 1], t)))
        return false;
    for (long long j = i + 1; j < i + min_length; j++)
        if (j >= n || starts[j] || !is_word(text[j], t))
            return false;
    return true;
}

template <typename C>
__global__ void token_tile_counts(const C* text, long long n, const unsigned char* starts,
                                  const unsigned int* tables, int min_length, int* counts)
{
    Tables t = load_tables(tables);
    long long tile = (long long)blockIdx.x * TOKEN_TILE;
    long long count = 0;
    for (long long i = tile + threadIdx.x; i < tile + TOKEN_TILE; i += 256)
        count += token_start(text, n, starts, i, t, min_length);
    long long total;
    block_exclusive_scan(count, &total);
    if (threadIdx.x == 0)
        counts[blockIdx.x] = (int)total;
}

template <typename C>
__global__ void token_tile_write(const C* text, long long n, const unsigned char* starts,
                                 const unsigned int* tables, int min_length,
                                 const long long* tile_offsets,
                                 long long* token_start_out, long long* token_end_out)
{
    __shared__ int warp_counts[8];
    Tables t = load_tables(tables);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned int below = (1u << lane) - 1u;
    long long tile = (long long)blockIdx.x * TOKEN_TILE;
    long long k = tile_offsets[blockIdx.x];  // tokens before this step
    for (long long step = tile; step < tile + TOKEN_TILE && step < n; step += 256) {
        long long i = step + threadIdx.x;
        bool flag = token_start(text, n, starts, i, t, min_length);
        unsigned int ballot = __ballot_sync(0xffffffffu, flag);
        if (lane == 0)
            warp_counts[warp] = __popc(ballot);
        __syncthreads();
        int before = 0, total = 0;
        for (int w = 0; w < 8; w++) {
            before += w < warp ? warp_counts[w] : 0;
            total += warp_counts[w];
        }
        if (flag) {
            long long slot = k + before + __popc(ballot & below);
            token_start_out[slot] = i;
            token_end_out[slot] = word_end(text, n, starts, i, t);
        }
        k += total;
        __syncthreads();
    }
}

// out[d] = the number of sorted values below queries[d].
extern "C" __global__ void lower_bounds(const long long* sorted, long long n,
                                        const long long* queries, long long n_queries,
                                        long long* out)
{
    GRID_STRIDE(d, n_queries) {
        long long lo = 0, hi = n, q = queries[d];
        while (lo < hi) {
            long long mid = (lo + hi) / 2;
            if (sorted[mid] < q)
                lo = mid + 1;
            else
                hi = mid;
        }
        out[d] = lo;
    }
}

// The n-grams starting at one item: after the j-th of its first max_n
// items is fed to `m`, the key of size j + 1 goes to slot j + 1 - min_n of
// `keys` (from min_n on); sizes with fewer than that many items available
// get NO_KEY.
__device__ __forceinline__ void store_ngram_key(long long* keys, int j, int min_n,
                                                const Murmur& m, long long doc,
                                                long long n_features, int alternate_sign)
{
    if (j + 1 >= min_n) {
        Murmur done = m;
        keys[j + 1 - min_n] = hashed_key(done.finish(), doc, n_features, alternate_sign);
    }
}

__device__ __forceinline__ void store_missing_sizes(long long* keys, int min_n, int max_n,
                                                    long long available)
{
    for (int size = max(min_n, (int)min((long long)max_n, available) + 1); size <= max_n;
         size++)
        keys[size - min_n] = NO_KEY;
}

// Word n-grams as scikit-learn's _word_ngrams makes them: for each token k
// of a document and each n in [min_n, max_n] with k + n tokens available,
// the tokens k .. k + n - 1 joined by single spaces. Slot k * (max_n -
// min_n + 1) + (n - min_n) of `keys` gets its key, or NO_KEY.
template <typename C>
__global__ void hash_word_ngrams(const C* text, int lower,
                                 const long long* token_start,
                                 const long long* token_end, long long n_tokens,
                                 const long long* doc_tokens, long long n_docs,
                                 int min_n, int max_n, long long n_features,
                                 int alternate_sign, long long* keys)
{
    int n_sizes = max_n - min_n + 1;
    FOR_ITEMS_WITH_DOC(k, n_tokens, doc, doc_tokens, n_docs) {
        long long available = doc_tokens[doc + 1] - k;
        long long* slots = keys + k * n_sizes;
        Murmur m;
        m.init();
        for (int j = 0; j < max_n && j < available; j++) {
            if (j)
                m.byte(' ');
            for (long long p = token_start[k + j]; p < token_end[k + j]; p++)
                m.code_point(lower_ascii(text[p], lower));
            store_ngram_key(slots, j, min_n, m, doc, n_features, alternate_sign);
        }
        store_missing_sizes(slots, min_n, max_n, available);
    }
}

// Character n-grams (analyzer="char") of the whitespace-normalized text:
// for each position i and each n in [min_n, max_n] that fits in the
// document, the characters i .. i + n - 1.
template <typename C>
__global__ void hash_char_ngrams(const C* text, long long n, int lower,
                                 const unsigned char* starts,
                                 const long long* offsets, long long n_docs,
                                 int min_n, int max_n, long long n_features,
                                 int alternate_sign, long long* keys)
{
    int n_sizes = max_n - min_n + 1;
    FOR_ITEMS_WITH_DOC(i, n, doc, offsets, n_docs) {
        long long available = offsets[doc + 1] - i;
        long long* slots = keys + i * n_sizes;
        Murmur m;
        m.init();
        for (int j = 0; j < max_n && j < available; j++) {
            m.code_point(lower_ascii(text[i + j], lower));
            store_ngram_key(slots, j, min_n, m, doc, n_features, alternate_sign);
        }
        store_missing_sizes(slots, min_n, max_n, available);
    }
}

// analyzer="char_wb": each word (maximal run of non-whitespace characters)
// padded with a space on both sides, w; for n from min_n to max_n, every
// n-character window of w while n < len(w), then w itself once and stop
// (scikit-learn's _char_wb_ngrams).
__device__ __forceinline__ long long wb_count(long long length, int min_n, int max_n)
{
    long long padded = length + 2, count = 0;
    for (int n = min_n; n <= max_n; n++) {
        if (n < padded) {
            count += padded - n + 1;
        } else {
            count += 1;
            break;
        }
    }
    return count;
}

template <typename C>
__device__ __forceinline__ long long nonspace_end(const C* text, long long n,
                                                  const unsigned char* starts,
                                                  long long i, const Tables& t)
{
    long long j = i + 1;
    while (j < n && !starts[j] && !is_space(text[j], t))
        j++;
    return j;
}

template <typename C>
__global__ void char_wb_counts(const C* text, long long n, const unsigned char* starts,
                               const unsigned int* tables, int min_n, int max_n, int* counts)
{
    Tables t = load_tables(tables);
    GRID_STRIDE(i, n) {
        int count = 0;
        if (!is_space(text[i], t) && (starts[i] || is_space(text[i - 1], t)))
            count = (int)wb_count(nonspace_end(text, n, starts, i, t) - i, min_n, max_n);
        counts[i] = count;
    }
}

template <typename C>
__global__ void hash_char_wb_ngrams(const C* text, long long n, int lower,
                                    const unsigned char* starts,
                                    const long long* offsets, long long n_docs,
                                    const unsigned int* tables, int min_n, int max_n,
                                    const long long* positions, long long n_features,
                                    int alternate_sign, long long* keys)
{
    Tables t = load_tables(tables);
    FOR_ITEMS_WITH_DOC(i, n, doc, offsets, n_docs) {
        if (positions[i + 1] == positions[i])
            continue;
        long long end = nonspace_end(text, n, starts, i, t);
        long long padded = end - i + 2;
        long long slot = positions[i];
        for (int size = min_n; size <= max_n; size++) {
            long long windows = size < padded ? padded - size + 1 : 1;
            for (long long s = 0; s < windows; s++) {
                Murmur m;
                m.init();
                long long stop = min(s + size, padded);
                for (long long q = s; q < stop; q++) {
                    unsigned int c = (q == 0 || q == padded - 1)
                                         ? ' '
                                         : lower_ascii(text[i + q - 1], lower);
                    m.code_point(c);
                }
                keys[slot++] = hashed_key(m.finish(), doc, n_features, alternate_sign);
            }
            if (size >= padded)
                break;
        }
    }
}

// -------------------------------------------------------------- the matrix

// After sorting: first[i] = 1 where a (document, column) pair begins.
extern "C" __global__ void key_firsts(const long long* keys, long long n, int* first)
{
    GRID_STRIDE(i, n) {
        long long key = keys[i];
        first[i] = key != NO_KEY && (i == 0 || (keys[i - 1] >> 1) != (key >> 1));
    }
}

// Each pair's summed signs (scikit-learn's sum_duplicates keeps a zero sum
// as a stored value), column, and the row pointers.
template <typename T, typename I>
__global__ void csr_write(const long long* keys, long long n,
                          const long long* positions, int binary, T* data, I* indices)
{
    GRID_STRIDE(i, n) {
        if (positions[i + 1] == positions[i])
            continue;
        long long pair = keys[i] >> 1;
        long long sum = 0;
        for (long long j = i; j < n && (keys[j] >> 1) == pair; j++)
            sum += (keys[j] & 1) ? -1 : 1;
        long long p = positions[i];
        data[p] = binary ? (T)1 : (T)sum;
        indices[p] = (I)(pair & 0x7fffffffLL);
    }
}

template <typename I>
__global__ void csr_indptr(const long long* keys, long long n,
                           const long long* positions, long long n_docs, I* indptr)
{
    GRID_STRIDE(d, n_docs + 1) {
        long long bound = d << 32;  // the first key of document d
        long long lo = 0, hi = n;
        while (lo < hi) {
            long long mid = (lo + hi) / 2;
            if (keys[mid] < bound)
                lo = mid + 1;
            else
                hi = mid;
        }
        indptr[d] = (I)positions[lo];
    }
}

// scikit-learn's inplace_csr_row_normalize_l1/l2: the row's sum of absolute
// values or squares in double, rows summing to zero left alone, each value
// divided in double and rounded to T.
template <typename T, typename I>
__global__ void csr_normalize(T* data, const I* indptr, long long n_rows, int l2)
{
    GRID_STRIDE(r, n_rows) {
        double s = 0.0;
        for (I j = indptr[r]; j < indptr[r + 1]; j++)
            s += l2 ? (double)(data[j] * data[j]) : fabs((double)data[j]);
        if (s == 0.0)
            continue;
        if (l2)
            s = sqrt(s);
        for (I j = indptr[r]; j < indptr[r + 1]; j++)
            data[j] = (T)((double)data[j] / s);
    }
}

// CountVectorizer's renumbering and pruning of columns (scikit-learn's
// _sort_features and _limit_features): column c becomes column_map[c], or
// is dropped where column_map[c] < 0. The stored values keep their order
// within a row, as SciPy's column indexing keeps it. W is a machine word of
// the values' size (they are copied, not read).

// counts[r] = the stored values of row r that stay.
template <typename I>
__global__ void csr_kept_counts(const I* indices, const I* indptr, long long n_rows,
                                const I* column_map, int* counts)
{
    GRID_STRIDE(r, n_rows) {
        int kept = 0;
        for (I j = indptr[r]; j < indptr[r + 1]; j++)
            kept += column_map[indices[j]] >= 0;
        counts[r] = kept;
    }
}

// Row r's staying values and their new columns, from out_indptr[r] on.
template <typename W, typename I>
__global__ void csr_map_columns(const W* data, const I* indices, const I* indptr,
                                long long n_rows, const I* column_map,
                                const I* out_indptr, W* out_data, I* out_indices)
{
    GRID_STRIDE(r, n_rows) {
        I at = out_indptr[r];
        for (I j = indptr[r]; j < indptr[r + 1]; j++) {
            const I column = column_map[indices[j]];
            if (column < 0)
                continue;
            out_data[at] = data[j];
            out_indices[at] = column;
            at++;
        }
    }
}

// ------------------------------------------------------------ vocabularies
//
// CountVectorizer's terms are told apart by a 128-bit fingerprint of their
// UTF-8 bytes: four MurmurHash3 (x86, 32 bits) hashes with different seeds,
// two of them as fp1 (sorted on, to group a term's occurrences) and two as
// fp2 (compared within each group: a group whose fp2 differ is an fp1
// collision, and the host then builds the vocabulary itself). Slots that
// hold no n-gram get NO_FINGERPRINT, which sorts last.

#define NO_FINGERPRINT 0xffffffffffffffffULL

struct Fingerprint {
    Murmur m[4];

    __device__ void init()
    {
        m[0].init(0x9747b28cu);
        m[1].init(0x2f9be6ccu);
        m[2].init(0x5bd1e995u);
        m[3].init(0x27d4eb2fu);
    }

    __device__ void byte(unsigned int b)
    {
        for (int s = 0; s < 4; s++)
            m[s].byte(b);
    }

    __device__ void code_point(unsigned int c) { utf8_bytes(*this, c); }

    __device__ void finish(unsigned long long* fp1, unsigned long long* fp2)
    {
        Murmur a = m[0], b = m[1], c = m[2], d = m[3];
        unsigned long long x = ((unsigned long long)(unsigned int)a.finish() << 32) |
                               (unsigned int)b.finish();
        *fp1 = x == NO_FINGERPRINT ? x - 1 : x;
        *fp2 = ((unsigned long long)(unsigned int)c.finish() << 32) |
               (unsigned int)d.finish();
    }
};

// The word n-grams of hash_word_ngrams (same slots), fingerprinted, with
// each one's document and its rank in the order scikit-learn's analyzer
// emits them (document, then n, then position): the first document's
// n-grams rank lowest.
template <typename C>
__global__ void fingerprint_word_ngrams(const C* text, int lower,
                                        const long long* token_start,
                                        const long long* token_end, long long n_tokens,
                                        const long long* doc_tokens, long long n_docs,
                                        int min_n, int max_n, unsigned long long* fp1,
                                        unsigned long long* fp2, long long* rank,
                                        long long* doc_of)
{
    int n_sizes = max_n - min_n + 1;
    FOR_ITEMS_WITH_DOC(k, n_tokens, doc, doc_tokens, n_docs) {
        long long first = doc_tokens[doc];
        long long count = doc_tokens[doc + 1] - first;
        long long available = doc_tokens[doc + 1] - k;
        Fingerprint f;
        f.init();
        for (int j = 0; j < max_n; j++) {
            if (j < available) {
                if (j)
                    f.byte(' ');
                for (long long p = token_start[k + j]; p < token_end[k + j]; p++)
                    f.code_point(lower_ascii(text[p], lower));
            }
            if (j + 1 < min_n)
                continue;
            long long size = j + 1 - min_n;
            long long slot = k * n_sizes + size;
            doc_of[slot] = doc;
            if (j < available) {
                f.finish(fp1 + slot, fp2 + slot);
                rank[slot] = first * n_sizes + size * count + (k - first);
            } else {
                fp1[slot] = NO_FINGERPRINT;
                fp2[slot] = 0;
                rank[slot] = -1;
            }
        }
    }
}

// The fingerprint of each whole document (the terms of a given vocabulary,
// uploaded one per document).
template <typename C>
__global__ void fingerprint_documents(const C* text, const long long* offsets,
                                      long long n_docs, unsigned long long* fp1,
                                      unsigned long long* fp2)
{
    GRID_STRIDE(d, n_docs) {
        Fingerprint f;
        f.init();
        for (long long p = offsets[d]; p < offsets[d + 1]; p++)
            f.code_point(text[p]);
        f.finish(fp1 + d, fp2 + d);
    }
}

// The character n-grams of hash_char_ngrams (same slots, on the
// whitespace-normalized text), fingerprinted, with each one's document and
// its rank in scikit-learn's order (document, then n, then position).
template <typename C>
__global__ void fingerprint_char_ngrams(const C* text, long long n, int lower,
                                        const unsigned char* starts,
                                        const long long* offsets, long long n_docs,
                                        int min_n, int max_n, unsigned long long* fp1,
                                        unsigned long long* fp2, long long* rank,
                                        long long* doc_of)
{
    int n_sizes = max_n - min_n + 1;
    FOR_ITEMS_WITH_DOC(i, n, doc, offsets, n_docs) {
        long long first = offsets[doc];
        long long count = offsets[doc + 1] - first;
        long long available = offsets[doc + 1] - i;
        Fingerprint f;
        f.init();
        for (int j = 0; j < max_n; j++) {
            if (j < available)
                f.code_point(lower_ascii(text[i + j], lower));
            if (j + 1 < min_n)
                continue;
            long long size = j + 1 - min_n;
            long long slot = i * n_sizes + size;
            doc_of[slot] = doc;
            if (j < available) {
                f.finish(fp1 + slot, fp2 + slot);
                rank[slot] = first * n_sizes + size * count + (i - first);
            } else {
                fp1[slot] = NO_FINGERPRINT;
                fp2[slot] = 0;
                rank[slot] = -1;
            }
        }
    }
}

// The n-grams of hash_char_wb_ngrams (same slots), fingerprinted; a slot's
// number is its rank (words in order, then n, then offset).
template <typename C>
__global__ void fingerprint_char_wb_ngrams(const C* text, long long n, int lower,
                                           const unsigned char* starts,
                                           const long long* offsets, long long n_docs,
                                           const unsigned int* tables, int min_n,
                                           int max_n, const long long* positions,
                                           unsigned long long* fp1,
                                           unsigned long long* fp2, long long* rank,
                                           long long* doc_of)
{
    Tables t = load_tables(tables);
    FOR_ITEMS_WITH_DOC(i, n, doc, offsets, n_docs) {
        if (positions[i + 1] == positions[i])
            continue;
        long long end = nonspace_end(text, n, starts, i, t);
        long long padded = end - i + 2;
        long long slot = positions[i];
        for (int size = min_n; size <= max_n; size++) {
            long long windows = size < padded ? padded - size + 1 : 1;
            for (long long s = 0; s < windows; s++) {
                Fingerprint f;
                f.init();
                long long stop = min(s + size, padded);
                for (long long q = s; q < stop; q++) {
                    unsigned int c = (q == 0 || q == padded - 1)
                                         ? ' '
                                         : lower_ascii(text[i + q - 1], lower);
                    f.code_point(c);
                }
                f.finish(fp1 + slot, fp2 + slot);
                rank[slot] = slot;
                doc_of[slot] = doc;
                slot++;
            }
            if (size >= padded)
                break;
        }
    }
}

// Where the chosen char_wb n-grams lie: for each slot (numbered as above),
// the text position of its first character that is not padding, how many
// such characters it has, and whether a padding space leads (bit 0) or
// ends (bit 1) it.
template <typename C>
__global__ void char_wb_spans(const C* text, long long n, const unsigned char* starts,
                              const unsigned int* tables, int min_n, int max_n,
                              const long long* positions, const long long* slots,
                              long long n_slots, long long* span_start,
                              long long* span_length, int* pads)
{
    Tables t = load_tables(tables);
    GRID_STRIDE(k, n_slots) {
        long long slot = slots[k];
        // the word start i with positions[i] <= slot < positions[i + 1]:
        // one before the first position past the slot
        long long lo = 0, hi = n;
        while (lo < hi) {
            long long mid = (lo + hi) / 2;
            if (positions[mid] > slot)
                hi = mid;
            else
                lo = mid + 1;
        }
        long long i = lo - 1;
        long long padded = nonspace_end(text, n, starts, i, t) - i + 2;
        long long rest = slot - positions[i], s = 0, stop = padded;
        for (int size = min_n; size <= max_n; size++) {
            long long windows = size < padded ? padded - size + 1 : 1;
            if (rest < windows) {
                s = rest;
                stop = min(s + size, padded);
                break;
            }
            rest -= windows;
        }
        long long core_start = max(s, 1LL), core_stop = min(stop, padded - 1);
        span_start[k] = i + core_start - 1;
        span_length[k] = max(core_stop - core_start, 0LL);
        pads[k] = (s == 0) | ((stop == padded) << 1);
    }
}

// The characters of spans of the text (as char_wb_spans gives them; no
// padding for the other analyzers) from out[positions[k]] on: a padding
// space, the span's characters (ASCII lowercased if `lower`), a padding
// space.
template <typename C>
__global__ void span_write(const C* text, int lower, const long long* span_start,
                           const long long* span_length, const int* pads,
                           long long n_spans, const long long* positions, C* out)
{
    GRID_STRIDE(k, n_spans) {
        long long q = positions[k];
        if (pads[k] & 1)
            out[q++] = ' ';
        for (long long p = span_start[k]; p < span_start[k] + span_length[k]; p++)
            out[q++] = (C)lower_ascii(text[p], lower);
        if (pads[k] & 2)
            out[q] = ' ';
    }
}

// The characters of chosen word n-grams (slot numbers as above), each
// followed by a NUL (which no word character is): first their lengths,
// then, after a scan, the characters.
extern "C" __global__ void word_ngram_lengths(const long long* slots, long long n,
                                              const long long* token_start,
                                              const long long* token_end, int min_n,
                                              int n_sizes, int* lengths)
{
    GRID_STRIDE(i, n) {
        long long k = slots[i] / n_sizes;
        int size = min_n + (int)(slots[i] % n_sizes);
        long long length = size;  // the spaces between tokens and the NUL
        for (int j = 0; j < size; j++)
            length += token_end[k + j] - token_start[k + j];
        lengths[i] = (int)length;
    }
}

template <typename C>
__global__ void word_ngram_write(const C* text, int lower, const long long* slots,
                                 long long n, const long long* token_start,
                                 const long long* token_end, int min_n, int n_sizes,
                                 const long long* positions, C* out)
{
    GRID_STRIDE(i, n) {
        long long k = slots[i] / n_sizes;
        int size = min_n + (int)(slots[i] % n_sizes);
        long long q = positions[i];
        for (int j = 0; j < size; j++) {
            if (j)
                out[q++] = ' ';
            for (long long p = token_start[k + j]; p < token_end[k + j]; p++)
                out[q++] = (C)lower_ascii(text[p], lower);
        }
        out[q] = 0;
    }
}

// After sorting the fingerprints: heads[i] = 1 where a term's group begins.
extern "C" __global__ void term_heads(const unsigned long long* sorted, long long n,
                                      int* heads)
{
    GRID_STRIDE(i, n) {
        unsigned long long x = sorted[i];
        heads[i] = x != NO_FINGERPRINT && (i == 0 || sorted[i - 1] != x);
    }
}

// Each slot's term (its group's number, or -1 for an empty slot), each
// term's first slot in sorted order, and its lowest rank (first_rank set to
// the largest value beforehand).
extern "C" __global__ void term_records(const long long* order,
                                        const unsigned long long* sorted,
                                        const long long* positions,
                                        const long long* rank, long long n,
                                        long long* term_of_slot, long long* head_slot,
                                        long long* first_rank)
{
    GRID_STRIDE(i, n) {
        long long slot = order[i];
        if (sorted[i] == NO_FINGERPRINT) {
            term_of_slot[slot] = -1;
            continue;
        }
        long long t = positions[i + 1] - 1;
        term_of_slot[slot] = t;
        if (positions[i + 1] != positions[i])
            head_slot[t] = slot;
        atomicMin(first_rank + t, rank[slot]);
    }
}

// Each term's slot of lowest rank (its representative, whose characters
// name it), and a flag where a group holds two different fp2.
extern "C" __global__ void term_check(const long long* order,
                                      const unsigned long long* sorted,
                                      const unsigned long long* fp2,
                                      const long long* positions,
                                      const long long* head_slot, const long long* rank,
                                      const long long* first_rank, long long n,
                                      long long* rep_slot, int* collision)
{
    GRID_STRIDE(i, n) {
        if (sorted[i] == NO_FINGERPRINT)
            continue;
        long long slot = order[i];
        long long t = positions[i + 1] - 1;
        if (fp2[slot] != fp2[head_slot[t]])
            *collision = 1;
        if (rank[slot] == first_rank[t])
            rep_slot[t] = slot;
    }
}

// The sorted keys of a count matrix (as hashed_key makes them, sign 0):
// each slot's document and its term's column, NO_KEY for empty slots and
// dropped terms (column -1).
extern "C" __global__ void count_keys(const long long* term_of_slot,
                                      const long long* doc_of,
                                      const long long* column_of_term, long long n,
                                      long long* keys)
{
    GRID_STRIDE(i, n) {
        long long t = term_of_slot[i];
        long long column = t < 0 ? -1 : column_of_term[t];
        keys[i] = column < 0 ? NO_KEY : (doc_of[i] << 32) | (column << 1);
    }
}

// The keys of a count matrix for a given vocabulary: each slot's
// fingerprint looked up among the vocabulary's (fp1 sorted, with their fp2
// and columns); a slot whose fp1 is found with another fp2 is not a term
// of the vocabulary.
extern "C" __global__ void lookup_terms(const unsigned long long* fp1,
                                        const unsigned long long* fp2,
                                        const long long* doc_of, long long n,
                                        const unsigned long long* vocab_fp1,
                                        const unsigned long long* vocab_fp2,
                                        const long long* vocab_column, long long n_vocab,
                                        long long* keys)
{
    GRID_STRIDE(i, n) {
        unsigned long long x = fp1[i];
        long long lo = 0, hi = n_vocab;
        while (lo < hi) {
            long long mid = (lo + hi) / 2;
            if (vocab_fp1[mid] < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        bool found = x != NO_FINGERPRINT && lo < n_vocab && vocab_fp1[lo] == x &&
                     vocab_fp2[lo] == fp2[i];
        keys[i] = found ? (doc_of[i] << 32) | (vocab_column[lo] << 1) : NO_KEY;
    }
}

// flag = 1 if two neighbours of a sorted array are equal.
extern "C" __global__ void any_equal_neighbours(const unsigned long long* sorted,
                                                long long n, int* flag)
{
    GRID_STRIDE(i, n) {
        if (i && sorted[i] == sorted[i - 1])
            *flag = 1;
    }
}
