// KMeans's Lloyd iteration on the device (gpuml.cluster._lloyd), for every
// run of a fit at once: the assignment of each sample to the nearest centre
// of each run without a score matrix in memory, and each run's cluster sums
// by fixed blocks of rows, added in row order (no atomics: a fit gives the
// same bits every time).

#define KM_GROUP 8

// Eight consecutive values from shared memory aligned to 8 values, in vector
// loads (the centres are read by every thread of a block at once: broadcasts).
__device__ __forceinline__ void km_load8(const float* p, float* v)
{
    const float4 a = reinterpret_cast<const float4*>(p)[0];
    const float4 b = reinterpret_cast<const float4*>(p)[1];
    v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
    v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
}

__device__ __forceinline__ void km_load8(const double* p, double* v)
{
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const double2 a = reinterpret_cast<const double2*>(p)[k];
        v[2 * k] = a.x;
        v[2 * k + 1] = a.y;
    }
}

// labels[r * n + i] for r < n_runs and rows i < n of X (n x p, C order): the
// cluster c < n_clusters of smallest  x_i . m2c[:, j] + c_sq[j],  j = r *
// n_clusters + c (the first one on a tie; a NaN score wins, as in NumPy's
// argmin), where m2c (p x width, C order) holds -2 times the centres of
// every run, one after another, transposed and padded with zeros to a width
// that is a multiple of KM_GROUP (c_sq likewise). A block keeps them all and
// its tile of rows (transposed) in shared memory: (p + 1) * width + p *
// (blockDim.x + 1) values. The products add the features in order.
template <typename T>
__global__ void kmeans_assign(const T* __restrict__ X, long long n, int p,
                              const T* __restrict__ m2c, const T* __restrict__ c_sq,
                              int n_runs, int n_clusters, int width,
                              int* __restrict__ labels)
{
    extern __shared__ __align__(16) unsigned char km_shared[];
    const int tile = blockDim.x;
    const int total = n_runs * n_clusters;
    T* cs = reinterpret_cast<T*>(km_shared);
    T* sq = cs + (long long)p * width;
    T* xs = sq + width;
    for (int k = threadIdx.x; k < p * width; k += tile) cs[k] = m2c[k];
    for (int k = threadIdx.x; k < width; k += tile) sq[k] = c_sq[k];
    for (long long base = (long long)blockIdx.x * tile; base < n;
         base += (long long)gridDim.x * tile) {
        __syncthreads();
        const long long rows = min((long long)tile, n - base);
        for (long long k = threadIdx.x; k < rows * p; k += tile) {
            const long long t = k / p;
            const int f = (int)(k - t * p);
            xs[f * (tile + 1) + t] = X[base * p + k];
        }
        __syncthreads();
        const int t = threadIdx.x;
        if (t >= rows) continue;
        int* own = labels + base + t;  // run r's label: own[r * n]
        T best = 0;
        int best_c = -1, run = 0, cluster = 0;
        for (int j0 = 0; j0 < total; j0 += KM_GROUP) {
            T acc[KM_GROUP];
#pragma unroll
            for (int g = 0; g < KM_GROUP; ++g) acc[g] = 0;
            for (int f = 0; f < p; ++f) {
                const T x = xs[f * (tile + 1) + t];
                T c[KM_GROUP];
                km_load8(cs + (long long)f * width + j0, c);
#pragma unroll
                for (int g = 0; g < KM_GROUP; ++g) acc[g] += x * c[g];
            }
#pragma unroll
            for (int g = 0; g < KM_GROUP; ++g) {
                if (j0 + g < total) {
                    if (cluster == n_clusters) {  // the previous run is done
                        own[(long long)run * n] = best_c;
                        ++run;
                        cluster = 0;
                        best_c = -1;
                    }
                    const T s = acc[g] + sq[j0 + g];
                    if (best_c < 0 || s < best || (isnan(s) && !isnan(best))) {
                        best = s;
                        best_c = cluster;
                    }
                    ++cluster;
                }
            }
        }
        own[(long long)run * n] = best_c;
    }
}

// Block b of `chunk` rows (rows b * chunk up to n) of X (n x p, C order):
// each run's cluster sums of w_i x_i, sums[b, r, c, f], and of the weights,
// weights[b, r, c] (in float64), with labels[r * n + i] in [0, n_clusters).
// One thread a (run, feature) pair (and one a run for the weights) adds its
// rows in order into shared memory: n_runs * n_clusters * (p values + one
// double). The blocks' parts are added in order by arrays.cu's sum_chunks.
template <typename T>
__global__ void kmeans_block_sums(const T* __restrict__ X, long long n, int p,
                                  const int* __restrict__ labels,
                                  const T* __restrict__ w, int n_runs, int n_clusters,
                                  long long chunk, T* __restrict__ sums,
                                  double* __restrict__ weights)
{
    extern __shared__ __align__(16) unsigned char km_shared[];
    const int cells = n_runs * n_clusters;
    double* acc_w = reinterpret_cast<double*>(km_shared);
    T* acc = reinterpret_cast<T*>(acc_w + cells);
    for (int k = threadIdx.x; k < cells * p; k += blockDim.x) acc[k] = 0;
    for (int k = threadIdx.x; k < cells; k += blockDim.x) acc_w[k] = 0;
    __syncthreads();
    const long long start = (long long)blockIdx.x * chunk;
    const long long stop = min(n, start + chunk);
    const int tasks = n_runs * p;
    for (int task = threadIdx.x; task < tasks + n_runs; task += blockDim.x) {
        if (task < tasks) {
            const int r = task / p, f = task - r * p;
            const int* own = labels + (long long)r * n;
            T* cell = acc + (long long)r * n_clusters * p + f;
#pragma unroll 8
            for (long long i = start; i < stop; ++i)
                cell[own[i] * p] += w[i] * X[i * p + f];
        } else {
            const int r = task - tasks;
            const int* own = labels + (long long)r * n;
            double* cell = acc_w + r * n_clusters;
#pragma unroll 8
            for (long long i = start; i < stop; ++i) cell[own[i]] += (double)w[i];
        }
    }
    __syncthreads();
    T* out = sums + (long long)blockIdx.x * cells * p;
    for (int k = threadIdx.x; k < cells * p; k += blockDim.x) out[k] = acc[k];
    double* out_w = weights + (long long)blockIdx.x * cells;
    for (int k = threadIdx.x; k < cells; k += blockDim.x) out_w[k] = acc_w[k];
}
