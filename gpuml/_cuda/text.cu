// Text: scikit-learn's HashingVectorizer analysis on the device (the
// shared definitions are in text.cuh).

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

// ------------------------------------------------ Python str (code points)

// Characters copied from the host in the width CPython stores each str in
// (1, 2 or 4 bytes), to their places as code points. runs holds n_runs rows
// (byte start in raw, width, first position in out, length); one block a
// run. flags[0] = 1 if a character is a capital sigma, flags[1] = 1 if one
// is a lone surrogate (U+D800 to U+DFFF).
extern "C" __global__ void widen_runs(const unsigned char* raw, const long long* runs,
                                      long long n_runs, unsigned int* out, int* flags)
{
    for (long long r = blockIdx.x; r < n_runs; r += gridDim.x) {
        const long long* run = runs + 4 * r;
        const unsigned char* src = raw + run[0];
        int width = (int)run[1];
        unsigned int* dst = out + run[2];
        bool sigma = false, surrogate = false;
        for (long long i = threadIdx.x; i < run[3]; i += blockDim.x) {
            unsigned int c = width == 1   ? src[i]
                             : width == 2 ? ((const unsigned short*)src)[i]
                                          : ((const unsigned int*)src)[i];
            dst[i] = c;
            sigma |= c == 0x3A3u;
            surrogate |= (c & 0xFFFFF800u) == 0xD800u;
        }
        if (sigma)
            flags[0] = 1;
        if (surrogate)
            flags[1] = 1;
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
        for_each_wb_ngram<Murmur>(text, n, starts, t, i, positions[i], min_n, max_n, lower,
                                  [&](Murmur& m, long long slot) {
                                      keys[slot] = hashed_key(m.finish(), doc, n_features,
                                                              alternate_sign);
                                  });
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
