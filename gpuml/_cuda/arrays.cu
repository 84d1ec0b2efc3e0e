// gpuml's array kernels: the finiteness check, casts, row gathers and
// chunk sums. One NVRTC compile (see __init__.py).

// flag[0] = 1 when x holds a NaN or an infinity (flag starts at 0).
template <typename T>
__global__ void nonfinite_flag(const T* x, long long n, int* flag)
{
    int found = 0;
    GRID_STRIDE(i, n) {
        if (!isfinite((double)x[i])) found = 1;
    }
    if (found) flag[0] = 1;
}

// out = (D)in, element by element (contiguous arrays).
template <typename S, typename D>
__global__ void cast(const S* in, D* out, long long n)
{
    GRID_STRIDE(i, n) { out[i] = (D)in[i]; }
}

// out (rows, cols), contiguous = (D)in, where row r of in starts at
// in + r * in_stride (a row-strided view, e.g. some columns of a matrix).
template <typename S, typename D>
__global__ void cast_rows(const S* in, long long in_stride, long long rows,
                          long long cols, D* out)
{
    GRID_STRIDE(i, rows * cols) {
        const long long r = i / cols, c = i - r * cols;
        out[i] = (D)in[r * in_stride + c];
    }
}

// dst[r] = src[rows[r]] for rows of `words` machine words (negative rows
// count from the end, as in NumPy).
template <typename W>
__global__ void gather_rows(const W* src, const long long* rows, long long n_rows,
                            long long n_src, long long words, W* dst)
{
    GRID_STRIDE(i, n_rows * words) {
        const long long r = i / words, j = i - r * words;
        long long row = rows[r];
        if (row < 0) row += n_src;
        dst[i] = src[row * words + j];
    }
}

// dst[rows[r]] = src[r] for rows of `words` machine words (rows distinct
// and in range).
template <typename W>
__global__ void scatter_rows(const W* src, const long long* rows, long long n_rows,
                             long long words, W* dst)
{
    GRID_STRIDE(i, n_rows * words) {
        const long long r = i / words, j = i - r * words;
        dst[rows[r] * words + j] = src[i];
    }
}

// out[j] = sum over c < chunks of parts[c * width + j], added in order of c
// (the same bits at every call).
template <typename T>
__global__ void sum_chunks(const T* parts, long long chunks, long long width, T* out)
{
    GRID_STRIDE(j, width) {
        T s = 0;
        for (long long c = 0; c < chunks; ++c) s += parts[c * width + j];
        out[j] = s;
    }
}

// partials[c] = sum of x over chunk c (one 256-thread block per chunk).
extern "C" __global__ void chunk_sums(const double* x, long long n, long long chunk,
                                      double* partials)
{
    __shared__ double shared[256];
    const long long c = blockIdx.x;
    const long long stop = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    double s = 0.0;
    for (long long i = c * chunk + threadIdx.x; i < stop; i += 256) s += x[i];
    shared[threadIdx.x] = s;
    __syncthreads();
    for (int width = 128; width > 0; width >>= 1) {
        if (threadIdx.x < width) shared[threadIdx.x] += shared[threadIdx.x + width];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[c] = shared[0];
}

// ------------------------------------------------------------ CSR matrices

// The rows `rows` of a CSR matrix (out_indptr, the new row pointers, made
// by the caller): one warp per output row, its lanes copying the row's
// stored values (as words W of their size) and column indices.
template <typename W, typename I>
__global__ void csr_take_rows(const W* data, const I* indices, const I* indptr,
                              const long long* rows, long long n_rows,
                              const I* out_indptr, W* out_data, I* out_indices)
{
    const long long warps = (long long)gridDim.x * (blockDim.x / 32);
    const int lane = threadIdx.x & 31;
    for (long long r = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
         r < n_rows; r += warps) {
        const I start = indptr[rows[r]], length = indptr[rows[r] + 1] - start;
        const I at = out_indptr[r];
        for (I j = lane; j < length; j += 32) {
            out_data[at + j] = data[start + j];
            out_indices[at + j] = indices[start + j];
        }
    }
}

// counts[c] += the stored values of column c (counts zeroed beforehand).
template <typename I>
__global__ void csr_column_counts(const I* indices, long long nnz, long long* counts)
{
    GRID_STRIDE(j, nnz) { atomicAdd((unsigned long long*)(counts + indices[j]), 1ull); }
}

// Products rounded on their own, never fused with a following addition
// into one FMA (as the host's compilers leave scikit-learn's loops).
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// TfidfTransformer.transform, one thread per row, in the order and
// precision of scikit-learn's code: tf -> 1 + log(tf) (sublinear; whole
// counts 1..n_logs read from `logs`, NumPy's values made on the host, so
// that they are NumPy's bits), times idf[column] (when idf is not null),
// then the row scaled to unit norm (1: l1, 2: l2; 0: none) by a double sum
// in storage order, rows summing to zero left alone (scikit-learn's
// inplace_csr_row_normalize_l1/l2).
template <typename T, typename I>
__global__ void tfidf_rows(const T* data, const I* indices, const I* indptr,
                           long long n_rows, const T* idf, int sublinear,
                           const T* logs, long long n_logs, int norm, T* out)
{
    GRID_STRIDE(r, n_rows) {
        const I start = indptr[r], stop = indptr[r + 1];
        double s = 0.0;
        for (I j = start; j < stop; j++) {
            T v = data[j];
            if (sublinear) {
                const bool whole = v >= (T)1 && v <= (T)n_logs &&
                                   (T)(long long)v == v;
                v = whole ? logs[(long long)v - 1] : log(v) + (T)1;
            }
            if (idf)
                v = v * idf[indices[j]];
            out[j] = v;
            s += norm == 2 ? (double)mul_rn(v, v) : fabs((double)v);
        }
        if (norm == 0 || s == 0.0)
            continue;
        if (norm == 2)
            s = sqrt(s);
        for (I j = start; j < stop; j++)
            out[j] = (T)((double)out[j] / s);
    }
}

// A C-ordered copy of a Fortran-ordered (n, k) matrix.
template <typename T>
__global__ void fortran_to_c(const T* src, long long n, long long k, T* dst)
{
    GRID_STRIDE(i, n * k) {
        const long long row = i / k, column = i - row * k;
        dst[i] = src[column * n + row];
    }
}
