// Exact nearest neighbours: the selection of the k smallest keys of each row
// of a tile of scores, and the ranks that trustworthiness needs.
//
// A tile holds, for some query rows i and every fitted row j, a float64
// score G[i, j] (an inner product from cuBLAS, or a distance); the key that
// orders row i's neighbours is alpha * G[i, j] + column[j] (column may be
// null): for the euclidean metric alpha = -2 and column[j] = |x_j|^2 (the
// squared distance less |x_i|^2, which does not change the order), for the
// cosine metric alpha = -1 on normalised rows, for distances alpha = 1.
// Equal keys are ordered by column index, so results do not depend on the
// order of the work, or (UMAP's searches: `hashed`) by tie_key, a hash of
// the (query, column) pair. A NaN key counts as +inf.

#define KNN_MAX_K 128
#define WARP 32
#define SELECT_UNROLL 4

__device__ __forceinline__ double score_key(const double* G, const double* column,
                                            double alpha, long long row_offset,
                                            long long j)
{
    const double g = alpha * G[row_offset + j];
    const double key = column ? g + column[j] : g;
    // NaN (inf - inf: a row whose squared norm or product overflows) is the
    // farthest key, as scikit-learn's exact distance to such a row is inf.
    return isnan(key) ? __longlong_as_double(0x7ff0000000000000LL) : key;
}

// The order of column j among equal keys of query row i when ties are
// hashed: a 31-bit hash of (i, j) (splitmix64's finaliser) above j's 32 bits,
// 0 for the query's own row, so that a row comes first among its
// duplicates (j < 2^32; gpuml.neighbors._search.tie_keys is its host twin).
// Taken for the index in the selection, it spreads a query's choice among
// equally near rows (a duplicate's copies) as umap-learn's NN-descent does,
// where the lowest indices would gather every query's edges on a few rows.
__device__ __forceinline__ long long tie_key(long long i, long long j)
{
    if (i == j)
        return j;
    unsigned long long z = (unsigned long long)i * 0x9E3779B97F4A7C15ULL ^ (unsigned long long)j;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (long long)((((z >> 33) | 1ULL) << 32) | (unsigned long long)j);
}

__device__ __forceinline__ bool key_less(double a, long long ia, double b, long long ib)
{
    return a < b || (a == b && ia < ib);
}

// The smallest (key, index) among the heads of the sorted lists that the
// lanes of a warp hold (each `count` long; `head` the lane's next entry),
// in every lane; the lane that held it moves its head on. Equal (key,
// index) pairs, only the padding of short lists (+inf, max), go to the
// lowest lane.
__device__ __forceinline__ void warp_pop(const double* keys, const long long* index,
                                         int count, int* head, double* key,
                                         long long* key_index)
{
    const int lane = threadIdx.x % WARP;
    double best = *head < count ? keys[*head] : __longlong_as_double(0x7ff0000000000000LL);
    long long best_index = *head < count ? index[*head] : 0x7fffffffffffffffLL;
    int best_lane = lane;
    for (int step = WARP / 2; step > 0; step /= 2) {
        const double other = __shfl_xor_sync(0xffffffff, best, step);
        const long long other_index = __shfl_xor_sync(0xffffffff, best_index, step);
        const int other_lane = __shfl_xor_sync(0xffffffff, best_lane, step);
        if (key_less(other, other_index, best, best_index) ||
            (other == best && other_index == best_index && other_lane < best_lane)) {
            best = other;
            best_index = other_index;
            best_lane = other_lane;
        }
    }
    if (lane == best_lane)
        (*head)++;
    *key = best;
    *key_index = best_index;
}

// Merge the sorted lists that the lanes of a warp hold (each `count` long):
// the k smallest, written by lane 0 to out_key and out_index.
__device__ void warp_merge(const double* keys, const long long* index, int count, int k,
                           double* out_key, long long* out_index)
{
    int head = 0;
    for (int out = 0; out < k; out++) {
        double key;
        long long key_index;
        warp_pop(keys, index, count, &head, &key, &key_index);
        if (threadIdx.x % WARP == 0) {
            out_key[out] = key;
            out_index[out] = key_index;
        }
    }
}

// The k-th smallest (key, index) of the union of the sorted lists that the
// lanes of a warp hold (each `count` long), in every lane; (+inf, max) when
// the union has fewer than k.
__device__ void warp_kth(const double* keys, const long long* index, int count, int k,
                         double* kth_key, long long* kth_index)
{
    int head = 0;
    for (int out = 0; out < k; out++)
        warp_pop(keys, index, count, &head, kth_key, kth_index);
}

// Keys a lane reads between refreshes of the warp's bound in knn_select.
#define SELECT_REFRESH 8

// The k smallest keys of each tile row (k <= KNN_MAX_K), ascending: one
// warp per row. Each lane keeps a sorted list of the smallest keys among
// its columns (in local memory; its last entry, once full, in registers),
// then the warp merges the 32 lists. A key goes into a list only if it is
// below the warp's bound: the k-th smallest of the lists' union, found
// again after 1, 2, 4 ... and then every SELECT_REFRESH rounds of
// SELECT_UNROLL keys per lane (k
// keys at or below it have been seen, so nothing above it is among the
// row's k smallest). A lane then inserts a few keys where it inserted
// about k (1 + ln(n / 32k)) with its own list's last entry as the only
// bound, shifting its list while the rest of the warp waited: on an H100
// a 4,096 x 65,536 tile took 5.5 ms at k = 15 (0.8 ms at k = 1, 102 ms at
// k = 64). The same keys either way, equal keys ordered by index (hashed:
// by tie_key of (row0 + tile row, index), which out_index then holds).
// out_key/out_index: (rows, k).
extern "C" __global__ void knn_select(const double* G, const double* column,
                                      double alpha, long long rows, long long n, int k,
                                      long long index_offset, long long row0, int hashed,
                                      double* out_key, long long* out_index)
{
    const double inf = __longlong_as_double(0x7ff0000000000000LL);
    const long long no_index = 0x7fffffffffffffffLL;
    double keys[KNN_MAX_K];
    long long index[KNN_MAX_K];
    const int lane = threadIdx.x % WARP;
    const long long warps = (long long)gridDim.x * (blockDim.x / WARP);
    for (long long r = (long long)blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
         r < rows; r += warps) {
        const long long offset = r * n;
        int count = 0;
        double worst = inf, bound = inf;  // worst: keys[k - 1] once full
        long long worst_index = no_index, bound_index = no_index;
        int round = 0;
        // every lane runs the same rounds (the bound's shuffles); in each,
        // SELECT_UNROLL loads in flight per lane before any is used
        for (long long start = 0; start < n; start += SELECT_UNROLL * WARP) {
            const long long base = start + lane;
            double loaded[SELECT_UNROLL];
#pragma unroll
            for (int u = 0; u < SELECT_UNROLL; u++) {
                const long long j = base + u * WARP;
                loaded[u] = j < n ? score_key(G, column, alpha, offset, j) : 0.0;
            }
#pragma unroll
            for (int u = 0; u < SELECT_UNROLL; u++) {
                const long long j = base + u * WARP;
                if (j >= n)
                    break;
                const double key = loaded[u];
                if (key > bound)  // (most keys: no tie key to compute)
                    continue;
                const long long global =
                    hashed ? tie_key(row0 + r, j + index_offset) : j + index_offset;
                if (!key_less(key, global, bound, bound_index))
                    continue;
                if (count == k && !key_less(key, global, worst, worst_index))
                    continue;
                int at = count < k ? count++ : k - 1;
                while (at > 0 && key_less(key, global, keys[at - 1], index[at - 1])) {
                    keys[at] = keys[at - 1];
                    index[at] = index[at - 1];
                    at--;
                }
                keys[at] = key;
                index[at] = global;
                if (count == k) {
                    worst = keys[k - 1];
                    worst_index = index[k - 1];
                }
            }
            // after rounds 1, 2, 4, ..., then every SELECT_REFRESH rounds:
            // early, so that few of the first keys go into the lists
            round++;
            if (round < SELECT_REFRESH ? (round & (round - 1)) == 0
                                       : round % SELECT_REFRESH == 0)
                warp_kth(keys, index, count, k, &bound, &bound_index);
        }
        warp_merge(keys, index, count, k, out_key + r * k, out_index + r * k);
    }
}

// The k smallest of two sorted (key, index) lists per row, into the first:
// a block of columns' selection merged into the rows' running one.
extern "C" __global__ void knn_merge(double* key, long long* index, const double* part_key,
                                     const long long* part_index, long long rows, int k)
{
    double keys[KNN_MAX_K];
    long long indices[KNN_MAX_K];
    GRID_STRIDE(r, rows) {
        double* a = key + r * k;
        long long* ai = index + r * k;
        const double* b = part_key + r * k;
        const long long* bi = part_index + r * k;
        int i = 0, j = 0;
        for (int out = 0; out < k; out++) {
            if (key_less(b[j], bi[j], a[i], ai[i])) {
                keys[out] = b[j];
                indices[out] = bi[j++];
            } else {
                keys[out] = a[i];
                indices[out] = ai[i++];
            }
        }
        for (int out = 0; out < k; out++) {
            a[out] = keys[out];
            ai[out] = indices[out];
        }
    }
}

// Euclidean distances of the selected neighbours computed again as
// sqrt(sum((q - x)^2)) (float64), then each row sorted again by (distance,
// tie_key(row0 + r, index)): the product form of the search loses the
// digits of near neighbours (a duplicate's distance comes out 1e-7, not 0,
// and taken for the nearest neighbour's distance it leaves the row no
// neighbour of membership 1 in UMAP's graph). A warp per row, its lanes
// over the features (coalesced reads of each neighbour's row); lane 0
// sorts (k <= KNN_MAX_K). Q: (rows, d) from row0 on, X: (n, d).
extern "C" __global__ void euclidean_exact(const double* Q, const double* X, long long rows,
                                           long long d, int k, long long row0,
                                           long long* index, double* dist)
{
    const int lane = threadIdx.x % WARP;
    const long long warps = (long long)gridDim.x * (blockDim.x / WARP);
    for (long long r = (long long)blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
         r < rows; r += warps) {
        const double* q = Q + r * d;
        long long* ri = index + r * k;
        double* rd = dist + r * k;
        for (int e = 0; e < k; e++) {
            const double* x = X + ri[e] * d;
            double s = 0.0;
            for (long long f = lane; f < d; f += WARP) {
                const double t = q[f] - x[f];
                s += t * t;
            }
            for (int step = WARP / 2; step > 0; step /= 2)
                s += __shfl_xor_sync(0xffffffff, s, step);
            if (lane == 0)
                rd[e] = sqrt(s);
        }
        if (lane != 0)
            continue;
        for (int e = 1; e < k; e++) {
            const double value = rd[e];
            const long long j = ri[e];
            const long long tie = tie_key(row0 + r, j);
            int at = e;
            while (at > 0 && key_less(value, tie, rd[at - 1], tie_key(row0 + r, ri[at - 1]))) {
                rd[at] = rd[at - 1];
                ri[at] = ri[at - 1];
                at--;
            }
            rd[at] = value;
            ri[at] = j;
        }
    }
}

// Manhattan distances of t query rows to n rows (float64, C order).
extern "C" __global__ void manhattan_tile(const double* Q, const double* X, long long t,
                                          long long n, long long d, double* out)
{
    GRID_STRIDE(p, t * n) {
        const long long i = p / n, j = p - i * n;
        const double* q = Q + i * d;
        const double* x = X + j * d;
        double s = 0.0;
        for (long long f = 0; f < d; f++)
            s += fabs(q[f] - x[f]);
        out[p] = s;
    }
}

// Trustworthiness' ranks: for tile row r (sample row0 + r) and each of its k
// neighbours e in the embedding, 1 + the number of other samples m whose key
// is below e's (equal keys ordered by index), as the position of e in
// scikit-learn's argsort of the row. One block per row.
extern "C" __global__ void neighbour_ranks(const double* G, const double* column,
                                           double alpha, long long rows, long long n,
                                           long long row0, const long long* neighbours,
                                           int k, long long* ranks)
{
    __shared__ unsigned long long count;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const long long offset = r * n, self = row0 + r;
        for (int e = 0; e < k; e++) {
            const long long target = neighbours[r * k + e];
            const double threshold = score_key(G, column, alpha, offset, target);
            if (threadIdx.x == 0)
                count = 0;
            __syncthreads();
            unsigned long long mine = 0;
            for (long long m = threadIdx.x; m < n; m += blockDim.x) {
                if (m == self)
                    continue;
                mine += key_less(score_key(G, column, alpha, offset, m), m, threshold, target);
            }
            atomicAdd(&count, mine);
            __syncthreads();
            if (threadIdx.x == 0)
                ranks[r * k + e] = (long long)count + 1;
            __syncthreads();
        }
    }
}

// ------------------------------------------------------------ row helpers

// Each row of X (n, d) centred (center) and scaled to unit l2 norm, in
// place; rows of zero norm stay zero (scikit-learn's normalize).
extern "C" __global__ void normalize_rows(double* X, long long n, long long d, int center)
{
    GRID_STRIDE(i, n) {
        double* x = X + i * d;
        if (center) {
            double mean = 0.0;
            for (long long f = 0; f < d; f++)
                mean += x[f];
            mean /= d;
            for (long long f = 0; f < d; f++)
                x[f] -= mean;
        }
        double s = 0.0;
        for (long long f = 0; f < d; f++)
            s += x[f] * x[f];
        if (s == 0.0)
            continue;
        s = sqrt(s);
        for (long long f = 0; f < d; f++)
            x[f] /= s;
    }
}

// out[i] = |X[i]|^2 for the rows of X (n, d).
extern "C" __global__ void squared_norms(const double* X, long long n, long long d,
                                         double* out)
{
    GRID_STRIDE(i, n) {
        const double* x = X + i * d;
        double s = 0.0;
        for (long long f = 0; f < d; f++)
            s += x[f] * x[f];
        out[i] = s;
    }
}

// Distances from the selected keys: kind 0, the keys are distances; 1,
// euclidean: sqrt(max(|q_i|^2 + key, 0)); 2, cosine: 1 + key clipped to
// [0, 2] (scikit-learn's cosine_distances). Hashed ties: the indices' low
// 32 bits, the row index, kept (in place).
extern "C" __global__ void knn_distances(const double* keys, const double* row_terms,
                                         long long rows, int k, int kind, int hashed,
                                         long long* index, double* out)
{
    GRID_STRIDE(p, rows * (long long)k) {
        const double key = keys[p];
        if (hashed)
            index[p] &= 0xffffffffLL;
        double d = key;
        if (kind == 1) {
            d = row_terms[p / k] + key;
            d = sqrt(d > 0.0 ? d : 0.0);
        } else if (kind == 2) {
            d = 1.0 + key;
            d = d < 0.0 ? 0.0 : (d > 2.0 ? 2.0 : d);
        }
        out[p] = d;
    }
}
