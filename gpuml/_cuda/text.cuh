// Text: what the text kernels (text.cu, vocabulary.cu) share.
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

// analyzer="char_wb" (scikit-learn's _char_wb_ngrams): each word (a maximal
// run of non-whitespace characters) padded with a space on both sides, of
// `padded` characters; for each size n from min_n to max_n, every window of
// n characters while n < padded, then the padded word itself once, and no
// larger size. for_each_wb_window visits the windows [s, stop) in that
// order until `visit` returns false; wb_count counts them without visiting.
template <typename Visit>
__device__ __forceinline__ void for_each_wb_window(long long padded, int min_n, int max_n,
                                                   Visit visit)
{
    for (int size = min_n; size <= max_n; size++) {
        long long windows = size < padded ? padded - size + 1 : 1;
        for (long long s = 0; s < windows; s++)
            if (!visit(s, min(s + size, padded)))
                return;
        if (size >= padded)
            return;
    }
}

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

// The characters of window [s, stop) of the padded word that starts at text
// position i, fed to the hash h (ASCII lowercased if `lower`).
template <typename H, typename C>
__device__ __forceinline__ void feed_wb_window(H& h, const C* text, long long i,
                                               long long padded, long long s,
                                               long long stop, int lower)
{
    for (long long q = s; q < stop; q++)
        h.code_point((q == 0 || q == padded - 1) ? ' ' : lower_ascii(text[i + q - 1], lower));
}

// The end of the word that starts at i: the first whitespace or document
// start after it.
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

// Each char_wb n-gram of the word that starts at i (slots from `slot` on, in
// for_each_wb_window's order), its characters fed to a fresh hash H, handed
// to sink(h, slot).
template <typename H, typename C, typename Sink>
__device__ __forceinline__ void for_each_wb_ngram(const C* text, long long n,
                                                  const unsigned char* starts,
                                                  const Tables& t, long long i,
                                                  long long slot, int min_n, int max_n,
                                                  int lower, Sink sink)
{
    long long padded = nonspace_end(text, n, starts, i, t) - i + 2;
    for_each_wb_window(padded, min_n, max_n, [&](long long s, long long stop) {
        H h;
        h.init();
        feed_wb_window(h, text, i, padded, s, stop, lower);
        sink(h, slot++);
        return true;
    });
}
