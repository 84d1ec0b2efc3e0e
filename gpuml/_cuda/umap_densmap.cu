// densMAP on the device: the layout's epoch with the density term and the
// embedding's radii (umap_layout.cuh holds the layout they share with
// umap.cu's layout_epoch).

// layout_epoch with densMAP's density term on each sampled edge (a fit:
// heads and tails the same points); clip4 of the term's move added to the
// attraction's, as umap-learn adds them.
extern "C" __global__ void layout_epoch_densmap(
    const float* head_embedding, const float* tail_embedding, float* out,
    const long long* indptr, const long long* keys, const float* epochs_per_sample,
    float* next_sample, float* next_negative, long long n_heads, long long n_tails,
    int dim, int epoch, float alpha, float a, float b, float gamma,
    float negative_rate, int same_space, unsigned long long seed, int part,
    int parts, const double* R, const double* re_sum, const double* phi_sum,
    const float* mu, double scale, double re_mean, double shift, double re_std)
{
    const DensmapTerms dens = {R, re_sum, phi_sum, mu, scale, re_mean, shift, re_std};
    layout_vertices(head_embedding, tail_embedding, out, indptr, keys, epochs_per_sample,
                    next_sample, next_negative, n_heads, n_tails, dim, epoch, alpha, a, b,
                    gamma, negative_rate, same_space, seed, part, parts, dens);
}

// densMAP's radii of the embedding at an epoch's start (umap-learn's
// _optimize_layout_euclidean_densmap_epoch_init), one thread per vertex v
// over its sampled edges (period > 0) of the symmetric graph: phi = 1 / (1 +
// a d^(2b)); phi_sum[v] = 2 sum phi (umap-learn adds each directed edge at
// both ends, so each undirected edge twice); re_sum[v] = log(1e-8 + sum phi
// d^2 / sum phi).
extern "C" __global__ void densmap_radii(
    const float* embedding, const long long* indptr, const long long* keys,
    const float* epochs_per_sample, long long n, int dim, float a, float b,
    double* re_sum, double* phi_sum)
{
    GRID_STRIDE(v, n) {
        double re = 0.0, phi_total = 0.0;
        const float* current = embedding + v * dim;
        for (long long e = indptr[v]; e < indptr[v + 1]; e++) {
            if (epochs_per_sample[e] <= 0.0f)
                continue;
            const float* other = embedding + (keys[e] - v * n) * dim;
            float dist2 = 0.0f;
            for (int d = 0; d < dim; d++) {
                const float diff = current[d] - other[d];
                dist2 += diff * diff;
            }
            const double phi = 1.0 / (1.0 + a * pow((double)dist2, (double)b));
            re += phi * dist2;
            phi_total += phi;
        }
        phi_sum[v] = 2.0 * phi_total;
        re_sum[v] = log(1e-8 + re / phi_total);
    }
}
