// gpuml's linear-model kernels: the batched L-BFGS driver's vector work and
// the logistic loss. One NVRTC compile for the whole file (see __init__.py).

__device__ double block_sum(double value, double* partial)
{
    const int tid = threadIdx.x;
    partial[tid] = value;
    __syncthreads();
    for (int width = blockDim.x / 2; width > 0; width >>= 1) {
        if (tid < width) partial[tid] += partial[tid + width];
        __syncthreads();
    }
    const double total = partial[0];
    __syncthreads();
    return total;
}

__device__ double nan_max(double a, double b)
{
    return (isnan(a) || b <= a) ? a : b;
}

__device__ double block_max(double value, double* partial)
{
    const int tid = threadIdx.x;
    partial[tid] = value;
    __syncthreads();
    for (int width = blockDim.x / 2; width > 0; width >>= 1) {
        if (tid < width) partial[tid] = nan_max(partial[tid], partial[tid + width]);
        __syncthreads();
    }
    const double total = partial[0];
    __syncthreads();
    return total;
}

// -H g by the two-loop recursion, one block per row, each row with its own
// ring of pairs; memory holds per row [rho (m), gamma, head, count]. Also
// writes g.d and d.d per row. Each thread owns the entries j = tid mod
// blockDim, so only the dot products need the block.
extern "C" __global__ void lbfgs_direction(
    const double* g, const double* S, const double* Y, const double* memory,
    int m, long long d, double* out, double* dots)
{
    __shared__ double partial[256];
    __shared__ double alpha[64];
    const int row = blockIdx.x, tid = threadIdx.x;
    const double* info = memory + (long long)row * (m + 3);
    const double gamma = info[m];
    const int head = (int)info[m + 1], count = (int)info[m + 2];
    const double* gr = g + (long long)row * d;
    double* q = out + (long long)row * d;
    for (long long j = tid; j < d; j += blockDim.x) q[j] = gr[j];
    for (int t = count - 1; t >= 0; --t) {
        const int slot = (head + t) % m;
        const long long base = ((long long)row * m + slot) * d;
        double sum = 0.0;
        for (long long j = tid; j < d; j += blockDim.x) sum += S[base + j] * q[j];
        const double a = info[slot] * block_sum(sum, partial);
        if (tid == 0) alpha[slot] = a;
        for (long long j = tid; j < d; j += blockDim.x) q[j] -= a * Y[base + j];
    }
    for (long long j = tid; j < d; j += blockDim.x) q[j] *= gamma;
    for (int t = 0; t < count; ++t) {
        const int slot = (head + t) % m;
        const long long base = ((long long)row * m + slot) * d;
        double sum = 0.0;
        for (long long j = tid; j < d; j += blockDim.x) sum += Y[base + j] * q[j];
        const double c = alpha[slot] - info[slot] * block_sum(sum, partial);
        for (long long j = tid; j < d; j += blockDim.x) q[j] += c * S[base + j];
    }
    double gd = 0.0, dd = 0.0;
    for (long long j = tid; j < d; j += blockDim.x) {
        q[j] = -q[j];
        gd += gr[j] * q[j];
        dd += q[j] * q[j];
    }
    gd = block_sum(gd, partial);
    dd = block_sum(dd, partial);
    if (tid == 0) {
        dots[2 * row] = gd;
        dots[2 * row + 1] = dd;
    }
}

// Per row at a trial point: [f, g_new.d, max |g_new|, |g_new - g|^2].
extern "C" __global__ void lbfgs_stats(
    const double* f, const double* g_new, const double* g, const double* dir,
    long long d, double* out)
{
    __shared__ double partial[256];
    const int row = blockIdx.x, tid = threadIdx.x;
    const long long base = (long long)row * d;
    double slope = 0.0, top = 0.0, yy = 0.0;
    for (long long j = tid; j < d; j += blockDim.x) {
        const double gn = g_new[base + j], diff = gn - g[base + j];
        slope += gn * dir[base + j];
        yy += diff * diff;
        top = nan_max(top, fabs(gn));
    }
    slope = block_sum(slope, partial);
    yy = block_sum(yy, partial);
    top = block_max(top, partial);
    if (tid == 0) {
        out[4 * row] = f[row];
        out[4 * row + 1] = slope;
        out[4 * row + 2] = top;
        out[4 * row + 3] = yy;
    }
}

// Per candidate row r: the gradient (k, d) from the data terms grad_W (p,
// k * rows: column r * rows + c), grad_b (k * rows), plus the penalty, all
// over the row's total weight; and the value from the summed losses.
extern "C" __global__ void logistic_finish(
    const double* params, const double* grad_W, const double* grad_b,
    const double* loss_sum, const double* inverse_C, const double* total,
    int rows, long long p, int fit_intercept, double* value, double* grad)
{
    __shared__ double partial[256];
    const int r = blockIdx.x, tid = threadIdx.x, k = gridDim.x;
    const long long n_coef = rows * p, d = n_coef + (fit_intercept ? rows : 0);
    const double* w = params + r * d;
    double squares = 0.0;
    for (long long j = tid; j < d; j += blockDim.x) {
        double g;
        if (j < n_coef) {
            const long long c = j / p, f = j % p;
            g = grad_W[f * (long long)k * rows + r * rows + c] + inverse_C[r] * w[j];
            squares += w[j] * w[j];
        } else {
            g = grad_b[r * rows + (j - n_coef)];
        }
        grad[r * d + j] = g / total[r];
    }
    partial[tid] = squares;
    __syncthreads();
    for (int width = blockDim.x / 2; width > 0; width >>= 1) {
        if (tid < width) partial[tid] += partial[tid + width];
        __syncthreads();
    }
    if (tid == 0) {
        value[r] = (loss_sum[r] + 0.5 * inverse_C[r] * partial[0]) / total[r];
    }
}

// Commit accepted trials, then place the next ones (k rows of d entries).
// control per row: [commit, memory slot (-1: none), next step]. A committed
// row takes the trial and its gradient as its point and gradient, storing
// (trial - x, g_trial - g) in its slot; every row's next trial is
// x + step * direction.
extern "C" __global__ void lbfgs_advance(
    const double* g_trial, const double* direction, const double* control,
    long long k, long long d, int m, double* x, double* g, double* trial,
    double* S, double* Y)
{
    GRID_STRIDE(i, k * d) {
        const long long row = i / d, j = i - row * d;
        if (control[3 * row] > 0) {
            const int slot = (int)control[3 * row + 1];
            if (slot >= 0) {
                const long long at = (row * m + slot) * d + j;
                S[at] = trial[i] - x[i];
                Y[at] = g_trial[i] - g[i];
            }
            x[i] = trial[i];
            g[i] = g_trial[i];
        }
        trial[i] = x[i] + control[3 * row + 2] * direction[i];
    }
}

// Binary logistic terms of the decision values z = raw (n, k) + intercept (k,
// every intercept_stride-th value):
// weighted losses and residuals w (sigmoid(z) - y), in float64; weights are
// (n) when weights_per_row is 0, else (n, k).
template <typename T>
__global__ void binary_logistic_terms(
    const T* raw, const double* intercept, long long intercept_stride,
    const double* target, const double* weights, int weights_per_row,
    long long n, long long k, double* loss, double* residual)
{
    GRID_STRIDE(i, n * k) {
        const long long row = i / k, c = i - row * k;
        const double z = (double)raw[i] + intercept[c * intercept_stride];
        const double y = target[row];
        const double w = weights_per_row ? weights[i] : weights[row];
        const double e = exp(-fabs(z));
        loss[i] = w * ((z > 0 ? z : 0.0) + log1p(e) - y * z);
        const double p = z >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
        residual[i] = w * (p - y);
    }
}

// ------------------------------------------------------------- wide rows
//
// The same vector work for rows of many entries (a sparse problem's million
// coefficients): one block per row leaves most of the GPU idle, so these
// kernels spread each row over a grid of (chunks, rows) blocks, their dot
// products adding up by atomics into arrays zeroed beforehand. The two-loop
// recursion becomes one launch per step (lbfgs_wide_dot, then
// lbfgs_wide_update); results equal the one-block kernels' up to the order
// of the sums.

#define WIDE_CHUNK (256 * 8)

// The entries of one block: j = chunk * WIDE_CHUNK + tid + 256 * s.
#define FOR_CHUNK(j, d)                                                          \
    for (long long j = (long long)blockIdx.x * WIDE_CHUNK + threadIdx.x;         \
         j < (long long)(blockIdx.x + 1) * WIDE_CHUNK && j < (d); j += blockDim.x)

// The slot of position t of a row's ring, or -1 when the row holds fewer
// pairs.
__device__ __forceinline__ int ring_slot(const double* info, int m, int t)
{
    const int head = (int)info[m + 1], count = (int)info[m + 2];
    return t < count ? (head + t) % m : -1;
}

// dots[row] += A[row, slot(t)] . q[row] over this block's entries (A = S in
// the first loop, Y in the second).
extern "C" __global__ void lbfgs_wide_dot(const double* A, const double* q,
                                          const double* memory, int m, long long d,
                                          int t, double* dots)
{
    __shared__ double partial[256];
    const int row = blockIdx.y;
    const int slot = ring_slot(memory + (long long)row * (m + 3), m, t);
    if (slot < 0)
        return;
    const double* a = A + ((long long)row * m + slot) * d;
    const double* qr = q + (long long)row * d;
    double sum = 0.0;
    FOR_CHUNK(j, d) sum += a[j] * qr[j];
    sum = block_sum(sum, partial);
    if (threadIdx.x == 0)
        atomic_add_double(dots + row, sum);
}

// One step of the recursion after its dot product. First loop (second = 0):
// alpha = rho * dot, q -= alpha * Y[slot]; second loop: q += (alpha - rho *
// dot) * S[slot]. With scale = 1, q *= gamma first (a position t past every
// row's pairs then only scales).
extern "C" __global__ void lbfgs_wide_update(const double* S, const double* Y,
                                             const double* memory, int m, long long d,
                                             int t, int second, int scale,
                                             const double* dots, double* alpha,
                                             double* q)
{
    const int row = blockIdx.y;
    const double* info = memory + (long long)row * (m + 3);
    const int slot = ring_slot(info, m, t);
    double* qr = q + (long long)row * d;
    const double gamma = info[m];
    double c = 0.0;
    const double* v = 0;
    if (slot >= 0) {
        const long long base = ((long long)row * m + slot) * d;
        if (!second) {
            c = -info[slot] * dots[row];
            v = Y + base;
            if (blockIdx.x == 0 && threadIdx.x == 0)
                alpha[row * m + slot] = -c;
        } else {
            c = alpha[row * m + slot] - info[slot] * dots[row];
            v = S + base;
        }
    }
    FOR_CHUNK(j, d) {
        double x = qr[j];
        if (scale)
            x *= gamma;
        if (v)
            x += c * v[j];
        qr[j] = x;
    }
}

// The direction is -q: negate, with g.d and d.d per row (dots zeroed).
extern "C" __global__ void lbfgs_wide_finish(const double* g, long long d, double* q,
                                             double* dots)
{
    __shared__ double partial[256];
    const int row = blockIdx.y;
    double* qr = q + (long long)row * d;
    const double* gr = g + (long long)row * d;
    double gd = 0.0, dd = 0.0;
    FOR_CHUNK(j, d) {
        const double x = -qr[j];
        qr[j] = x;
        gd += gr[j] * x;
        dd += x * x;
    }
    gd = block_sum(gd, partial);
    dd = block_sum(dd, partial);
    if (threadIdx.x == 0) {
        atomic_add_double(dots + 2 * row, gd);
        atomic_add_double(dots + 2 * row + 1, dd);
    }
}

// lbfgs_stats over a grid: out (k, 4) zeroed beforehand; f copied by the
// first block of each row. max |g_new| is kept by an integer atomicMax on the
// bits of non-negative doubles (their order as integers is theirs as
// doubles; a NaN's bits exceed infinity's, so a NaN wins as in nan_max).
extern "C" __global__ void lbfgs_wide_stats(const double* f, const double* g_new,
                                            const double* g, const double* dir,
                                            long long d, double* out)
{
    __shared__ double partial[256];
    const int row = blockIdx.y;
    const long long base = (long long)row * d;
    double slope = 0.0, top = 0.0, yy = 0.0;
    FOR_CHUNK(j, d) {
        const double gn = g_new[base + j], diff = gn - g[base + j];
        slope += gn * dir[base + j];
        yy += diff * diff;
        top = nan_max(top, fabs(gn));
    }
    slope = block_sum(slope, partial);
    yy = block_sum(yy, partial);
    top = block_max(top, partial);
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0)
            out[4 * row] = f[row];
        atomic_add_double(out + 4 * row + 1, slope);
        atomicMax((unsigned long long*)(out + 4 * row + 2),
                  (unsigned long long)__double_as_longlong(top));
        atomic_add_double(out + 4 * row + 3, yy);
    }
}

// logistic_finish over a grid: the gradient, and each row's sum of squared
// coefficients into squares (zeroed); logistic_wide_value then the values.
extern "C" __global__ void logistic_wide_finish(
    const double* params, const double* grad_W, const double* grad_b,
    const double* inverse_C, const double* total, int rows, long long p,
    int fit_intercept, int k, double* squares, double* grad)
{
    __shared__ double partial[256];
    const int r = blockIdx.y;
    const long long n_coef = rows * p, d = n_coef + (fit_intercept ? rows : 0);
    const double* w = params + r * d;
    double sum = 0.0;
    FOR_CHUNK(j, d) {
        double g;
        if (j < n_coef) {
            const long long c = j / p, f = j % p;
            g = grad_W[f * (long long)k * rows + r * rows + c] + inverse_C[r] * w[j];
            sum += w[j] * w[j];
        } else {
            g = grad_b[r * rows + (j - n_coef)];
        }
        grad[r * d + j] = g / total[r];
    }
    sum = block_sum(sum, partial);
    if (threadIdx.x == 0)
        atomic_add_double(squares + r, sum);
}

extern "C" __global__ void logistic_wide_value(const double* loss_sum,
                                               const double* inverse_C,
                                               const double* total,
                                               const double* squares, int k,
                                               double* value)
{
    GRID_STRIDE(r, k) {
        value[r] = (loss_sum[r] + 0.5 * inverse_C[r] * squares[r]) / total[r];
    }
}
