// The elastic net's coordinate descent (gpuml/linear_model/_coordinate_descent_solver.py):
// one whole cyclic sweep of a batch of candidates in one launch, on a shared Gram
// matrix (enet_gram_sweep) or on dense residuals (enet_dense_sweep, below). One block per candidate; thread 0 makes the coordinate's update (the
// same operations, in the same order and rounding, as the NumPy/CuPy path: the
// products and sums are rounded separately, never fused), then the block adds
// the rank-1 term to the candidate's column of Qw = G @ W.
//
// Layouts (C order): G (p, p) symmetric; B = X^T y per candidate, Qw, W and
// excluded (p, k), candidate c in column c; l1, l2, d_w_max, w_max (k);
// skip (p): the coordinates that no candidate updates (columns of zeros, or
// excluded by every candidate), the same for the whole block; done (k, or
// null): candidates that have stopped, whose blocks return at once (their W
// and state untouched, d_w_max and w_max not written).

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }

template <typename T>
__global__ void enet_gram_sweep(const T* G, const T* B, T* Qw, T* W,
                                const T* l1, const T* l2,
                                const unsigned char* excluded,
                                const unsigned char* skip,
                                const unsigned char* done, long long p,
                                long long k, int positive, T* d_w_max, T* w_max)
{
    const long long c = blockIdx.x;
    if (c >= k || (done != nullptr && done[c])) return;
    __shared__ T s_delta;
    const T a = l1[c], b = l2[c], zero = (T)0;
    T dmax = zero, wmax = zero;
    for (long long j = 0; j < p; ++j) {
        if (skip[j]) continue;  // the same j for every thread of the block
        if (threadIdx.x == 0) {
            const long long at = j * k + c;
            const T w_j = W[at];
            const T g = G[j * p + j];
            // tmp = (B - Qw) + w_j * g
            const T tmp = add_rn(sub_rn(B[at], Qw[at]), mul_rn(w_j, g));
            // max(tmp - a, 0) [+ min(tmp + a, 0)] / (g + b)
            T nw = sub_rn(tmp, a);
            nw = nw > zero ? nw : zero;
            if (!positive) {
                T low = add_rn(tmp, a);
                low = low < zero ? low : zero;
                nw = add_rn(nw, low);
            }
            nw = div_rn(nw, add_rn(g, b));
            if (excluded[at]) nw = w_j;
            const T delta = sub_rn(nw, w_j);
            W[at] = nw;
            s_delta = delta;
            const T ad = delta < zero ? -delta : delta;
            const T aw = nw < zero ? -nw : nw;
            dmax = ad > dmax ? ad : dmax;
            wmax = aw > wmax ? aw : wmax;
        }
        __syncthreads();
        const T delta = s_delta;
        const T* row = G + j * p;
        for (long long i = threadIdx.x; i < p; i += blockDim.x) {
            Qw[i * k + c] = add_rn(Qw[i * k + c], mul_rn(row[i], delta));
        }
        __syncthreads();  // Qw is read by thread 0 at the next coordinate
    }
    if (threadIdx.x == 0) {
        d_w_max[c] = dmax;
        w_max[c] = wmax;
    }
}

// The same sweep on the residuals R = y - X W of dense (wide) X: XT (p, n) is X
// transposed (a contiguous row per feature), R (n, k) and W (p, k) as above,
// norm2 (p) the squared column norms. One block of ENET_THREADS threads per
// candidate: the coordinate's dot product X_j . R_c is summed by the block (a
// tree in shared memory: not NumPy's order, so the last bits may differ from the
// per-coordinate path), thread 0 makes the update, the block updates R_c.
#define ENET_THREADS 256

template <typename T>
__global__ void enet_dense_sweep(const T* XT, const T* norm2, T* R, T* W,
                                 const T* l1, const T* l2,
                                 const unsigned char* excluded,
                                 const unsigned char* skip,
                                 const unsigned char* done, long long n, long long p,
                                 long long k, int positive, T* d_w_max, T* w_max)
{
    const long long c = blockIdx.x;
    if (c >= k || (done != nullptr && done[c])) return;
    __shared__ T partial[ENET_THREADS];
    __shared__ T s_delta;
    const int tid = threadIdx.x;
    const T a = l1[c], b = l2[c], zero = (T)0;
    T dmax = zero, wmax = zero;
    for (long long j = 0; j < p; ++j) {
        if (skip[j]) continue;  // the same j for every thread of the block
        const T* x = XT + j * n;
        T s = zero;
        for (long long i = tid; i < n; i += ENET_THREADS) {
            s = add_rn(s, mul_rn(x[i], R[i * k + c]));
        }
        partial[tid] = s;
        __syncthreads();
        for (int half = ENET_THREADS / 2; half > 0; half >>= 1) {
            if (tid < half) partial[tid] = add_rn(partial[tid], partial[tid + half]);
            __syncthreads();
        }
        if (tid == 0) {
            const long long at = j * k + c;
            const T w_j = W[at];
            const T g = norm2[j];
            const T tmp = add_rn(partial[0], mul_rn(w_j, g));
            T nw = sub_rn(tmp, a);
            nw = nw > zero ? nw : zero;
            if (!positive) {
                T low = add_rn(tmp, a);
                low = low < zero ? low : zero;
                nw = add_rn(nw, low);
            }
            nw = div_rn(nw, add_rn(g, b));
            if (excluded[at]) nw = w_j;
            const T delta = sub_rn(nw, w_j);
            W[at] = nw;
            s_delta = delta;
            const T ad = delta < zero ? -delta : delta;
            const T aw = nw < zero ? -nw : nw;
            dmax = ad > dmax ? ad : dmax;
            wmax = aw > wmax ? aw : wmax;
        }
        __syncthreads();  // s_delta written, partial[0] read
        const T delta = s_delta;
        for (long long i = tid; i < n; i += ENET_THREADS) {
            R[i * k + c] = sub_rn(R[i * k + c], mul_rn(x[i], delta));
        }
        __syncthreads();  // s_delta read by all before thread 0 writes it again
    }
    if (tid == 0) {
        d_w_max[c] = dmax;
        w_max[c] = wmax;
    }
}
