// Text: CountVectorizer's vocabularies and count matrices on the device
// (the shared definitions are in text.cuh): compiled as modules of their
// own, so that the hashing vectorizer's first use does not compile them.

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

// The fingerprint kernels' outputs, per slot: fp1, fp2, the rank in
// scikit-learn's order, the document.
struct NgramSlots {
    unsigned long long* fp1;
    unsigned long long* fp2;
    long long* rank;
    long long* doc_of;

    __device__ void store(Fingerprint& f, long long slot, long long rank_of_slot,
                          long long doc)
    {
        f.finish(fp1 + slot, fp2 + slot);
        rank[slot] = rank_of_slot;
        doc_of[slot] = doc;
    }

    // After the j-th of the first max_n items from `item` (of a document
    // whose items are first .. first + count - 1) was fed to f: the n-gram
    // of j + 1 items (from min_n on) goes to slot item * n_sizes + j + 1 -
    // min_n, ranked by document, then size, then position; sizes with fewer
    // than j + 1 items available get an empty slot.
    __device__ void store_size(Fingerprint& f, int j, long long available, int min_n,
                               int n_sizes, long long item, long long first,
                               long long count, long long doc)
    {
        if (j + 1 < min_n)
            return;
        long long size = j + 1 - min_n;
        long long slot = item * n_sizes + size;
        if (j < available) {
            store(f, slot, first * n_sizes + size * count + (item - first), doc);
        } else {
            fp1[slot] = NO_FINGERPRINT;
            fp2[slot] = 0;
            rank[slot] = -1;
            doc_of[slot] = doc;
        }
    }

    // The n-grams of 1 .. max_n items from `item` of document `doc` (whose
    // items are bounds[doc] .. bounds[doc + 1] - 1), one fingerprint grown
    // item by item: feed(f, j) adds item `item + j`, and each size from
    // min_n on is stored by store_size.
    template <typename Feed>
    __device__ void store_sizes(long long item, long long doc, const long long* bounds,
                                int min_n, int max_n, Feed feed)
    {
        long long first = bounds[doc];
        long long count = bounds[doc + 1] - first;
        long long available = bounds[doc + 1] - item;
        int n_sizes = max_n - min_n + 1;
        Fingerprint f;
        f.init();
        for (int j = 0; j < max_n; j++) {
            if (j < available)
                feed(f, j);
            store_size(f, j, available, min_n, n_sizes, item, first, count, doc);
        }
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
    NgramSlots out{fp1, fp2, rank, doc_of};
    FOR_ITEMS_WITH_DOC(k, n_tokens, doc, doc_tokens, n_docs) {
        out.store_sizes(k, doc, doc_tokens, min_n, max_n, [&](Fingerprint& f, int j) {
            if (j)
                f.byte(' ');
            for (long long p = token_start[k + j]; p < token_end[k + j]; p++)
                f.code_point(lower_ascii(text[p], lower));
        });
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
    NgramSlots out{fp1, fp2, rank, doc_of};
    FOR_ITEMS_WITH_DOC(i, n, doc, offsets, n_docs) {
        out.store_sizes(i, doc, offsets, min_n, max_n, [&](Fingerprint& f, int j) {
            f.code_point(lower_ascii(text[i + j], lower));
        });
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
    NgramSlots out{fp1, fp2, rank, doc_of};
    Tables t = load_tables(tables);
    FOR_ITEMS_WITH_DOC(i, n, doc, offsets, n_docs) {
        if (positions[i + 1] == positions[i])
            continue;
        for_each_wb_ngram<Fingerprint>(text, n, starts, t, i, positions[i], min_n, max_n,
                                       lower, [&](Fingerprint& f, long long slot) {
                                           out.store(f, slot, slot, doc);
                                       });
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
        for_each_wb_window(padded, min_n, max_n, [&](long long a, long long b) {
            if (rest-- > 0)
                return true;
            s = a;
            stop = b;
            return false;
        });
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
