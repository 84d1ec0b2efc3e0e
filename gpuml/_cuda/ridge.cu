// Ridge's kernels: column moments, the augmented design of the Gram
// statistics and their float64 accumulation, the eigenvalue shrinkage and
// the intercepts of the batched predictions. One NVRTC compile (see
// __init__.py).

// Per-column float64 (count, sum, sum of squares) of X - shift over a chunk
// of rows per blockIdx.y, skipping NaN; out is (chunks, p, 3).
template <typename T>
__global__ void column_moments(const T* X, const double* w, const double* shift,
                               double* out, long long n, long long p,
                               long long rows_per_chunk)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= p) return;
    const long long start = (long long)blockIdx.y * rows_per_chunk;
    long long stop = start + rows_per_chunk;
    if (stop > n) stop = n;
    const double s = shift ? shift[j] : 0.0;
    double c = 0.0, s1 = 0.0, s2 = 0.0;
    for (long long i = start; i < stop; ++i) {
        const double x = (double)X[i * p + j];
        if (isnan(x)) continue;
        const double wi = w ? w[i] : 1.0;
        const double d = x - s;
        c += wi;
        s1 += wi * d;
        s2 += wi * d * d;
    }
    const long long o = ((long long)blockIdx.y * p + j) * 3;
    out[o] = c;
    out[o + 1] = s1;
    out[o + 2] = s2;
}

// mean[j] = sum / count from the (p, 3) moments, in T.
template <typename T>
__global__ void moments_mean(const double* totals, long long p, T* mean)
{
    GRID_STRIDE(j, p) { mean[j] = (T)(totals[3 * j + 1] / totals[3 * j]); }
}

// One chunk of Ridge's augmented design, Z = [X - sx, Y - sy, 1] (rows x
// (p + t + 1)), from the rows `rows` (or lo, lo+1, ... when rows is null);
// `shift` = [sx, sy] (p + t values; null: no shift); with weights w, also
// Zw = w * Z. Rows count .. padded - 1 are zeros (the chunk is padded to
// whole blocks of rows; a zero row adds nothing). A block per row
// (grid-stride), its threads along the row: no division.
template <typename T>
__global__ void ridge_design(const T* X, const T* Y, const long long* rows,
                             long long lo, long long count, long long padded,
                             long long p, long long t, const T* shift,
                             const T* w, T* Z, T* Zw)
{
    const long long width = p + t + 1;
    for (long long r = blockIdx.x; r < padded; r += gridDim.x) {
        T* z = Z + r * width;
        T* zw = w ? Zw + r * width : nullptr;
        if (r >= count) {
            for (long long j = threadIdx.x; j < width; j += blockDim.x) {
                z[j] = (T)0;
                if (w) zw[j] = (T)0;
            }
            continue;
        }
        const long long row = rows ? rows[lo + r] : lo + r;
        const T* x = X + row * p;
        const T* y = Y + row * t;
        const T weight = w ? w[row] : (T)1;
        for (long long j = threadIdx.x; j < width; j += blockDim.x) {
            T value;
            if (j < p) value = x[j];
            else if (j < p + t) value = y[j - p];
            else value = (T)1;
            if (shift && j < p + t) value -= shift[j];
            z[j] = value;
            if (w) zw[j] = value * weight;
        }
    }
}

// total[i] += sum over b < blocks of parts[b * size + i], in float64: the
// per-block products of a chunk added to the running statistics.
template <typename T>
__global__ void add_blocks(const T* parts, long long blocks, long long size,
                           double* total)
{
    GRID_STRIDE(i, size) {
        double s = total[i];
        for (long long b = 0; b < blocks; ++b) s += (double)parts[b * size + i];
        total[i] = s;
    }
}

// out (k, n, t) from flat (n, k * t) products plus the intercepts b (k * t).
template <typename T>
__global__ void add_intercepts(const T* flat, const T* b, long long n, long long k,
                               long long t, T* out)
{
    const long long kt = k * t;
    GRID_STRIDE(i, n * kt) {
        const long long row = i / kt, c = i - row * kt;
        const long long kk = c / t, tt = c - kk * t;
        out[(kk * n + row) * t + tt] = flat[i] + b[c];
    }
}

// Ridge's shrunk projections for every penalty, from one eigendecomposition:
// S (kt, p) with S[c, j] = projected[j, c % t] / (lambda_j + alpha[c]), where
// lambda_j = max(evals[j], 0), and 0 where the shifted eigenvalue is at most
// max(lambda) * eps_p (evals ascending, as cuSOLVER returns them).
template <typename T>
__global__ void eigen_shrink(const T* evals, const T* projected, const T* alphas,
                             long long p, long long t, long long kt, T eps_p, T* S)
{
    const T top = evals[p - 1] > (T)0 ? evals[p - 1] : (T)0;
    const T cutoff = top * eps_p;
    GRID_STRIDE(i, kt * p) {
        const long long c = i / p, j = i - c * p;
        const T lambda = evals[j] > (T)0 ? evals[j] : (T)0;
        const T shifted = lambda + alphas[c];
        S[i] = shifted > cutoff ? ((T)1 / shifted) * projected[j * t + c % t] : (T)0;
    }
}

// out[i] = x[i] * x[i] (RidgeCV: the squares of the leave-one-out basis B).
template <typename T>
__global__ void square_values(const T* x, long long n, T* out)
{
    GRID_STRIDE(i, n) { out[i] = x[i] * x[i]; }
}

// RidgeCV's leave-one-out squared errors, summed per (alpha, target) into out
// (a * t, zeroed), from the transposed products of _ridge_cv._loo_errors:
// Ct (a * t, n) = (B (F By))ᵀ, Dt (a, n) = (B² Fᵀ)ᵀ and, with an intercept, Et
// (a, n) = (B (F Bs)ᵀ)ᵀ (else null); Y (n, t) the centred, weighted targets,
// root (n) the weights' square roots (null: ones). Row j = blockIdx.y of the
// output is alpha j / t, target j % t; the blocks along x split the samples,
// each block's sum added once (THREADS threads, a tree in shared memory).
template <typename T>
__global__ void loo_squares(const T* Ct, const T* Dt, const T* Et, const T* Y,
                            const T* root, T g, T inv_sw_sum, long long n,
                            long long t, double* out)
{
    __shared__ double partial[256];
    const long long j = blockIdx.y;
    const long long alpha = j / t, target = j % t;
    double acc = 0.0;
    GRID_STRIDE(i, n) {
        const T c = Ct[j * n + i] + g * Y[i * t + target];
        T d = Dt[alpha * n + i] + g;
        if (Et) {
            const T s = root ? root[i] : (T)1;
            d -= (Et[alpha * n + i] + g * s) * (s * inv_sw_sum);
        }
        const T e = c / d;
        acc += (double)(e * e);
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomic_add_double(out + j, partial[0]);
}
