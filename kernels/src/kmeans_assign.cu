// k-means assignment step (Rodinia kmeans "find nearest centroid"): one thread per point, points stored
// point-major (n x nfeatures) so lanes read addresses nfeatures floats apart. The first centroid with the
// smallest squared distance wins. Points whose membership changes bump *changed with an atomic.
extern "C" __global__ void kmeans_assign(const float* points, const float* centroids, int n, int nfeatures, int k,
                                         int* membership, int* changed)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    int best = 0;
    float best_dist = 3.402823466e+38f;
    for (int c = 0; c < k; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < nfeatures; ++f) {
            float diff = points[p * nfeatures + f] - centroids[c * nfeatures + f];
            dist += diff * diff;
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    if (membership[p] != best) {
        membership[p] = best;
        atomicAdd(changed, 1);
    }
}
