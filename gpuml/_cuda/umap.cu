// UMAP on the device: the fuzzy simplicial set of a kNN graph and the
// stochastic gradient descent of the layout. The NumPy functions of
// gpuml/manifold/_umap_graph.py and _umap_layout.py are the same algorithms
// (the CPU path and the test oracle); comments name umap-learn's functions
// whose meaning each kernel keeps.

#define SMOOTH_K_TOLERANCE 1e-5
#define MIN_K_DIST_SCALE 1e-3

// umap-learn's smooth_knn_dist and compute_membership_strengths, one thread
// per row of the (n, k) kNN distances (ascending): rho from the
// local_connectivity-th nonzero distance, sigma by bisection so that the
// memberships sum to target = log2(k) * bandwidth (the first column, the
// point itself in a fit, left out of the sum), then each membership
// exp(-(d - rho) / sigma). A fit's self-neighbour gets 0; index -1 (no
// neighbour) gets 0.
template <typename T>
__global__ void smooth_knn(const T* dists, const long long* index, long long n, int k,
                           double local_connectivity, double target, double mean_all,
                           int n_iter, int bipartite, float* values, double* sigmas,
                           double* rhos)
{
    GRID_STRIDE(i, n) {
        const T* d = dists + i * k;
        double rho = 0.0;
        int nonzero = 0;
        double last_nonzero = 0.0, row_sum = 0.0;
        for (int j = 0; j < k; j++) {
            row_sum += (double)d[j];
            if (d[j] > 0) {
                nonzero++;
                last_nonzero = d[j];
            }
        }
        if (nonzero >= local_connectivity) {
            const int floor_lc = (int)floor(local_connectivity);
            const double interpolation = local_connectivity - floor_lc;
            // the floor_lc-th and next nonzero distances (1-based)
            double at = 0.0, next = 0.0, first = 0.0;
            int seen = 0;
            for (int j = 0; j < k; j++) {
                if (d[j] > 0) {
                    seen++;
                    if (seen == 1) first = d[j];
                    if (seen == floor_lc) at = d[j];
                    if (seen == floor_lc + 1) next = d[j];
                }
            }
            if (floor_lc > 0) {
                rho = at;
                if (interpolation > SMOOTH_K_TOLERANCE)
                    rho += interpolation * (next - at);
            } else {
                rho = interpolation * first;
            }
        } else if (nonzero > 0) {
            rho = last_nonzero;  // the largest: distances are ascending
        }
        double lo = 0.0, hi = __longlong_as_double(0x7ff0000000000000LL), mid = 1.0;
        for (int it = 0; it < n_iter; it++) {
            double psum = 0.0;
            for (int j = 1; j < k; j++) {
                const double gap = (double)d[j] - rho;
                psum += gap > 0 ? exp(-(gap / mid)) : 1.0;
            }
            if (fabs(psum - target) < SMOOTH_K_TOLERANCE)
                break;
            if (psum > target) {
                hi = mid;
                mid = (lo + hi) / 2.0;
            } else {
                lo = mid;
                mid = isinf(hi) ? mid * 2 : (lo + hi) / 2.0;
            }
        }
        const double mean_row = row_sum / k;
        if (rho > 0.0) {
            if (mid < MIN_K_DIST_SCALE * mean_row)
                mid = MIN_K_DIST_SCALE * mean_row;
        } else if (mid < MIN_K_DIST_SCALE * mean_all) {
            mid = MIN_K_DIST_SCALE * mean_all;
        }
        sigmas[i] = mid;
        rhos[i] = rho;
        for (int j = 0; j < k; j++) {
            const long long neighbour = index[i * k + j];
            double value;
            if (neighbour < 0 || (!bipartite && neighbour == i))
                value = 0.0;
            else if ((double)d[j] - rho <= 0.0 || mid == 0.0)
                value = 1.0;
            else
                value = exp(-(((double)d[j] - rho) / mid));
            values[i * k + j] = (float)value;
        }
    }
}

// The keys of P's entries (row i, column index[i, j]) and of its
// transpose's, row * n + column; a missing neighbour (-1) gets the largest
// key, after every row. Sorted, they come in runs of one or two per key.
extern "C" __global__ void union_keys(const long long* index, long long n, int k,
                                      long long* keys)
{
    const long long m = n * k;
    GRID_STRIDE(e, m) {
        const long long i = e / k, j = index[e];
        keys[e] = j < 0 ? 0x7fffffffffffffffLL : i * n + j;
        keys[m + e] = j < 0 ? 0x7fffffffffffffffLL : j * n + i;
    }
}

// P[row, column]: the membership of column among row's neighbours, 0 if
// it is not one.
__device__ __forceinline__ float membership(const long long* index, const float* values,
                                            int k, long long row, long long column)
{
    for (int j = 0; j < k; j++)
        if (index[row * k + j] == column)
            return values[row * k + j];
    return 0.0f;
}

// The fuzzy union of P and its transpose (umap-learn's fuzzy_simplicial_set)
// over the sorted keys: the first entry of a key's run gets
// mix * (a + b - ab) + (1 - mix) * ab with a = P[r, c] and b = P[c, r]
// (read from the kNN lists), the others 0. max_bits: the largest weight's
// bits (weights are >= 0, so their bits order as they do).
extern "C" __global__ void fuzzy_union(const long long* keys, long long m,
                                       const long long* index, const float* values,
                                       long long n, int k, double mix, float* weights,
                                       unsigned int* max_bits)
{
    GRID_STRIDE(e, m) {
        float w = 0.0f;
        const long long key = keys[e];
        if (key != 0x7fffffffffffffffLL && (e == 0 || keys[e - 1] != key)) {
            const long long r = key / n, c = key - r * n;
            const float a = membership(index, values, k, r, c);
            const float b = membership(index, values, k, c, r);
            const float product = a * b;
            w = (float)(mix * (double)(a + b - product) + (1.0 - mix) * (double)product);
        }
        weights[e] = w;
        if (w > 0.0f)
            atomicMax(max_bits, __float_as_uint(w));
    }
}

// umap-learn's pruning (weights below max / prune_epochs dropped) and
// make_epochs_per_sample: n_epochs / (n_epochs * w / max), -1 for none.
extern "C" __global__ void edge_schedule(const float* weights, long long m,
                                         const unsigned int* max_bits, float n_epochs,
                                         float prune_epochs, float* epochs_per_sample)
{
    const float top = __uint_as_float(*max_bits);
    GRID_STRIDE(e, m) {
        const float w = weights[e];
        const float samples = n_epochs * (w / top);
        const bool dropped = w <= 0.0f || w < top / prune_epochs || samples <= 0.0f;
        epochs_per_sample[e] = dropped ? -1.0f : n_epochs / samples;
    }
}

// The spectral layout's normalised adjacency D^-1/2 W D^-1/2 of a
// symmetric graph in CSR order (keys row * n + column): first each row's
// degree (sum of weights), then each entry's value and int32 column (the
// arrays cupyx's sparse matrices take).
extern "C" __global__ void row_degrees(const long long* indptr, const float* weights,
                                       long long n, double* degree)
{
    GRID_STRIDE(r, n) {
        double s = 0.0;
        for (long long e = indptr[r]; e < indptr[r + 1]; e++)
            s += weights[e];
        degree[r] = s;
    }
}

extern "C" __global__ void normalise_edges(const long long* indptr, const long long* keys,
                                           const float* weights, const double* degree,
                                           long long n, double* values, int* columns)
{
    GRID_STRIDE(r, n) {
        for (long long e = indptr[r]; e < indptr[r + 1]; e++) {
            const long long c = keys[e] - r * n;
            const double w = weights[e];
            values[e] = w > 0.0 ? w / sqrt(degree[r] * degree[c]) : 0.0;
            columns[e] = (int)c;
        }
    }
}

// Connected components by label propagation: each vertex takes the least
// label among itself and its neighbours (edges of positive weight), then
// its label's label (pointer jumping); changed[0] = 1 while any label
// falls. At the fixed point a vertex's label is the least vertex of its
// component, so the graph is connected when every label is 0.
extern "C" __global__ void propagate_labels(const long long* indptr, const long long* keys,
                                            const float* weights, long long n,
                                            long long* labels, int* changed)
{
    GRID_STRIDE(v, n) {
        long long least = labels[v];
        for (long long e = indptr[v]; e < indptr[v + 1]; e++) {
            if (weights[e] > 0.0f) {
                const long long other = labels[keys[e] - v * n];
                least = other < least ? other : least;
            }
        }
        least = labels[least] < least ? labels[least] : least;
        if (least < labels[v]) {
            atomicMin((unsigned long long*)(labels + v), (unsigned long long)least);
            changed[0] = 1;
        }
    }
}

// flag[0] = 1 when some label is not 0 (the graph is not connected).
extern "C" __global__ void any_nonzero_label(const long long* labels, long long n, int* flag)
{
    GRID_STRIDE(v, n) {
        if (labels[v] != 0)
            flag[0] = 1;
    }
}

// y = A x for CSR A (values, int32 columns, int64 row pointers), a thread
// per row: the spectral layout's Lanczos iterations.
extern "C" __global__ void csr_matvec(const long long* indptr, const int* columns,
                                      const double* values, const double* x, long long n,
                                      double* y)
{
    GRID_STRIDE(r, n) {
        double s = 0.0;
        for (long long e = indptr[r]; e < indptr[r + 1]; e++)
            s += values[e] * x[columns[e]];
        y[r] = s;
    }
}

// Row pointers of sorted keys (row * n_columns + column).
extern "C" __global__ void key_rows(const long long* keys, long long m, long long n_rows,
                                    long long n_columns, long long* indptr)
{
    GRID_STRIDE(r, n_rows + 1) {
        const long long bound = r * n_columns;
        long long lo = 0, hi = m;
        while (lo < hi) {
            const long long mid = (lo + hi) / 2;
            if (keys[mid] < bound)
                lo = mid + 1;
            else
                hi = mid;
        }
        indptr[r] = lo;
    }
}

// The sampling clocks at the start: each edge's next sample after one
// period, its next negative samples after period / negative_rate.
extern "C" __global__ void layout_start(const float* epochs_per_sample, long long m,
                                        float negative_rate, float* next_sample,
                                        float* next_negative)
{
    GRID_STRIDE(e, m) {
        next_sample[e] = epochs_per_sample[e];
        next_negative[e] = epochs_per_sample[e] / negative_rate;
    }
}

extern "C" __global__ void layout_epoch(
    const float* head_embedding, const float* tail_embedding, float* out,
    const long long* indptr, const long long* keys, const float* epochs_per_sample,
    float* next_sample, float* next_negative, long long n_heads, long long n_tails,
    int dim, int epoch, float alpha, float a, float b, float gamma,
    float negative_rate, int same_space, unsigned long long seed, int part,
    int parts)
{
    const DensmapTerms none = {nullptr, nullptr, nullptr, nullptr, 0.0, 0.0, 0.0, 1.0};
    layout_vertices(head_embedding, tail_embedding, out, indptr, keys, epochs_per_sample,
                    next_sample, next_negative, n_heads, n_tails, dim, epoch, alpha, a, b,
                    gamma, negative_rate, same_space, seed, part, parts, none);
}
