// UMAP's layout, shared by the modules "umap" (layout_epoch) and
// "umap_densmap" (densMAP's kernels, compiled only when a densMAP fit runs:
// the full optimiser's compile of the "umap" module is part of every first
// UMAP fit).

// A 64-bit mix (splitmix64's finaliser): the negative samples' randomness,
// a function of (seed, edge, epoch, sample) so that runs repeat.
__device__ __forceinline__ unsigned long long mix64(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

__device__ __forceinline__ float clip4(float v)
{
    return v > 4.0f ? 4.0f : (v < -4.0f ? -4.0f : v);
}

#define LAYOUT_MAX_DIM 16

// densMAP's terms of an epoch (umap-learn's optimize_layout_euclidean with
// densmap): the data's standardised radii R, the embedding's radii re_sum
// and phi_sum at the epoch's start (densmap_radii), each edge's membership
// mu, scale = dens_lambda * mu_tot / n_vertices, the radii's mean, shift =
// cov / var and std. Null R: no density term (UMAP's layout).
struct DensmapTerms {
    const double* R;
    const double* re_sum;
    const double* phi_sum;
    const float* mu;
    double scale, re_mean, shift, re_std;
};

// The density-correlation coefficient of edge e from v to tail at squared
// distance dist2 (umap-learn's grad_cor_coeff, times 2).
__device__ __forceinline__ float densmap_coefficient(const DensmapTerms& t, long long e,
                                                     long long v, long long tail,
                                                     float dist2, float a, float b)
{
    const double d2 = (double)dist2;
    const double power = pow(d2, (double)b);
    const double phi = 1.0 / (1.0 + a * power);
    const double dphi = d2 > 0.0 ? a * b * pow(d2, (double)b - 1.0) / (1.0 + a * power) : 0.0;
    const double radius_term = 1.0 - b * (1.0 - phi);
    const double drk = phi / t.phi_sum[tail] * (radius_term / exp(t.re_sum[tail]) + dphi);
    const double drj = phi / t.phi_sum[v] * (radius_term / exp(t.re_sum[v]) + dphi);
    const double weight_k = t.R[tail] - t.shift * (t.re_sum[tail] - t.re_mean);
    const double weight_j = t.R[v] - t.shift * (t.re_sum[v] - t.re_mean);
    const double cor = t.scale * (weight_k * drk + weight_j * drj) / ((double)t.mu[e] * t.re_std);
    return (float)(2.0 * cor);
}

// One part of an epoch of umap-learn's optimize_layout_euclidean, one
// thread per head vertex v, which walks its edges of this part (CSR, sorted
// keys row * n_tail + tail; part `part` of `parts` is the slots
// [indptr[v] + deg * part / parts, indptr[v] + deg * (part + 1) / parts))
// in order, moving its own position `current` (in registers) toward each
// sampled edge's tail and away from its negative samples, as umap-learn
// moves `current`; every other position is read as it was when the part
// began (`tail_embedding`), so that the result does not depend on the
// threads' timing. A fit runs an epoch in several parts, so that a move
// reaches the neighbours within the epoch (see _umap_layout.py). In a fit
// the graph holds both directions of each edge and each end moves itself
// when its own direction is sampled (umap-learn also moves the tail,
// move_other; see _umap_layout.py).
__device__ __forceinline__ void layout_vertices(
    const float* head_embedding, const float* tail_embedding, float* out,
    const long long* indptr, const long long* keys, const float* epochs_per_sample,
    float* next_sample, float* next_negative, long long n_heads, long long n_tails,
    int dim, int epoch, float alpha, float a, float b, float gamma,
    float negative_rate, int same_space, unsigned long long seed, int part,
    int parts, const DensmapTerms& dens)
{
    float current[LAYOUT_MAX_DIM];
    GRID_STRIDE(v, n_heads) {
        for (int d = 0; d < dim; d++)
            current[d] = head_embedding[v * dim + d];
        const long long first = indptr[v], degree = indptr[v + 1] - first;
        const long long begin = first + degree * part / parts;
        const long long end = first + degree * (part + 1) / parts;
        for (long long e = begin; e < end; e++) {
            const float period = epochs_per_sample[e];
            if (period <= 0.0f || next_sample[e] > (float)epoch)
                continue;
            const long long tail = keys[e] - v * n_tails;
            const float* other = tail_embedding + tail * dim;
            float dist2 = 0.0f;
            for (int d = 0; d < dim; d++) {
                const float diff = current[d] - other[d];
                dist2 += diff * diff;
            }
            float coeff = 0.0f;
            if (dist2 > 0.0f)
                coeff = -2.0f * a * b * powf(dist2, b - 1.0f) / (a * powf(dist2, b) + 1.0f);
            if (dens.R == nullptr) {
                for (int d = 0; d < dim; d++)
                    current[d] += clip4(coeff * (current[d] - other[d])) * alpha;
            } else {
                const float dens_coeff = densmap_coefficient(dens, e, v, tail, dist2, a, b);
                for (int d = 0; d < dim; d++) {
                    const float diff = current[d] - other[d];
                    current[d] += (clip4(coeff * diff) + clip4(dens_coeff * diff)) * alpha;
                }
            }
            next_sample[e] += period;
            const float negative_period = period / negative_rate;
            const int n_negative = (int)(((float)epoch - next_negative[e]) / negative_period);
            for (int p = 0; p < n_negative; p++) {
                const unsigned long long draw =
                    mix64(seed ^ mix64(((unsigned long long)e << 20) ^
                                       ((unsigned long long)epoch << 8) ^ p));
                const long long k = (long long)(draw % (unsigned long long)n_tails);
                if (same_space && k == v)
                    continue;
                const float* negative = tail_embedding + k * dim;
                dist2 = 0.0f;
                for (int d = 0; d < dim; d++) {
                    const float diff = current[d] - negative[d];
                    dist2 += diff * diff;
                }
                if (dist2 <= 0.0f)
                    continue;
                coeff = 2.0f * gamma * b / ((0.001f + dist2) * (a * powf(dist2, b) + 1.0f));
                for (int d = 0; d < dim; d++)
                    current[d] += clip4(coeff * (current[d] - negative[d])) * alpha;
            }
            next_negative[e] += n_negative * negative_period;
        }
        for (int d = 0; d < dim; d++)
            out[v * dim + d] = current[d];
    }
}

