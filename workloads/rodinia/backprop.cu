// backprop: Rodinia's back propagation (one training step of a 2-layer perceptron: input -> 16 hidden -> 1
// output), as measured by Wang et al. 2016. The GPU does the input layer's two big steps, the host the rest:
//   layerforward: a 16 x 16 block per 16 input units (grid 1 x inputs/16); the block stages its 16 inputs, loads a
//                 16 x 16 tile of input->hidden weights, multiplies, and sums the tile's columns with a
//                 shared-memory tree over the rows; each block writes 16 partial sums (one per hidden unit) that
//                 the host adds up, then squashes; the host runs the hidden->output layer and both error terms;
//   adjust_weights: the same 16 x 16 mapping updates every input->hidden weight with learning rate and momentum.
// Weights are (inputs + 1) x (hidden + 1), row-major, row/column 0 being the bias unit (Rodinia's layout).
// Paper size: Rodinia's default command line "backprop 65536" (65536 input units).
#include "common.cuh"

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kHeight = 16; // inputs per block (Rodinia's HEIGHT)
constexpr int kHidden = 16; // hidden units (Rodinia's WIDTH)
constexpr float kEta = 0.3f;
constexpr float kMomentum = 0.3f;

__global__ void layerforward(const float* input, float* weights, float* partial_sums, int hidden) {
    const int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    const int index = (hidden + 1) * kHeight * by + (hidden + 1) * ty + tx + 1 + (hidden + 1);
    const int index_in = kHeight * by + ty + 1;
    __shared__ float input_node[kHeight];
    __shared__ float weight_matrix[kHeight][kHidden];
    if (tx == 0) input_node[ty] = input[index_in];
    __syncthreads();
    weight_matrix[ty][tx] = weights[index];
    __syncthreads();
    weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
    __syncthreads();
    for (int step = 2; step <= kHeight; step *= 2) {
        if (ty % step == 0) weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + step / 2][tx];
        __syncthreads();
    }
    // Rodinia stores the products back over the weights (the host restores them before adjust_weights).
    weights[index] = weight_matrix[ty][tx];
    __syncthreads();
    if (tx == 0) partial_sums[by * hidden + ty] = weight_matrix[tx][ty];
}

__global__ void adjust_weights(const float* delta, int hidden, const float* input, float* weights, float* old_weights) {
    const int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    const int index = (hidden + 1) * kHeight * by + (hidden + 1) * ty + tx + 1 + (hidden + 1);
    const int index_y = kHeight * by + ty + 1;
    const int index_x = tx + 1;
    const float change = kEta * delta[index_x] * input[index_y] + kMomentum * old_weights[index];
    weights[index] += change;
    old_weights[index] = change;
    __syncthreads();
    if (ty == 0 && by == 0) { // the bias row
        const float bias_change = kEta * delta[index_x] + kMomentum * old_weights[index_x];
        weights[index_x] += bias_change;
        old_weights[index_x] = bias_change;
    }
}

double squash(double x) { return 1.0 / (1.0 + std::exp(-x)); }

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "backprop");
    const int in = size == workload::Size::paper ? 65536 : 16384;
    const int hid = kHidden;
    const int blocks = in / kHeight;
    const std::size_t wcount = static_cast<std::size_t>(in + 1) * (hid + 1);

    workload::Random rng(65536);
    std::vector<float> input(in + 1), w_ih(wcount), w_ho(hid + 1);
    input[0] = 1.0f; // bias unit (unused by the kernels' data rows)
    for (int i = 1; i <= in; ++i) input[i] = unit(rng);
    for (float& w : w_ih) w = 0.02f * (unit(rng) - 0.5f);
    for (float& w : w_ho) w = unit(rng) - 0.5f;
    const float target = 0.1f;

    // ---- GPU step (host parts in float, as Rodinia's host code) ----
    float* d_input = workload::to_device(input);
    float* d_weights = workload::to_device(w_ih);
    float* d_partial = workload::device_zeros<float>(static_cast<std::size_t>(blocks) * hid);
    float* d_old = workload::device_zeros<float>(wcount);
    const dim3 block(kHidden, kHeight);
    const dim3 grid(1, blocks);
    layerforward<<<grid, block>>>(d_input, d_weights, d_partial, hid);
    CHECK_LAUNCH();
    const std::vector<float> partial = workload::to_host(d_partial, static_cast<std::size_t>(blocks) * hid);
    std::vector<float> hidden_units(hid + 1);
    hidden_units[0] = 1.0f;
    for (int j = 1; j <= hid; ++j) {
        float sum = 0.0f;
        for (int k = 0; k < blocks; ++k) sum += partial[static_cast<std::size_t>(k) * hid + j - 1];
        sum += w_ih[j]; // bias row
        hidden_units[j] = static_cast<float>(squash(sum));
    }
    float out_sum = w_ho[0];
    for (int j = 1; j <= hid; ++j) out_sum += w_ho[j] * hidden_units[j];
    const float output = static_cast<float>(squash(out_sum));
    const float output_delta = output * (1.0f - output) * (target - output);
    std::vector<float> hidden_delta(hid + 1, 0.0f);
    for (int j = 1; j <= hid; ++j)
        hidden_delta[j] = hidden_units[j] * (1.0f - hidden_units[j]) * output_delta * w_ho[j];
    float* d_delta = workload::to_device(hidden_delta);
    CHECK(cudaMemcpy(d_weights, w_ih.data(), wcount * sizeof(float), cudaMemcpyHostToDevice)); // restore weights
    adjust_weights<<<grid, block>>>(d_delta, hid, d_input, d_weights, d_old);
    CHECK_LAUNCH();
    const std::vector<float> got = workload::to_host(d_weights, wcount);

    // ---- Host reference in double ----
    std::vector<double> ref_hidden(hid + 1, 1.0);
    for (int j = 1; j <= hid; ++j) {
        double sum = w_ih[j];
        for (int i = 1; i <= in; ++i)
            sum += static_cast<double>(w_ih[static_cast<std::size_t>(i) * (hid + 1) + j]) * input[i];
        ref_hidden[j] = squash(sum);
    }
    double ref_out_sum = w_ho[0];
    for (int j = 1; j <= hid; ++j) ref_out_sum += w_ho[j] * ref_hidden[j];
    const double ref_output = squash(ref_out_sum);
    const double ref_output_delta = ref_output * (1.0 - ref_output) * (target - ref_output);
    std::vector<float> want(w_ih.begin(), w_ih.end());
    for (int j = 1; j <= hid; ++j) {
        const double delta = ref_hidden[j] * (1.0 - ref_hidden[j]) * ref_output_delta * w_ho[j];
        want[j] = static_cast<float>(w_ih[j] + kEta * delta); // bias row
        for (int i = 1; i <= in; ++i) {
            const std::size_t k = static_cast<std::size_t>(i) * (hid + 1) + j;
            want[k] = static_cast<float>(w_ih[k] + kEta * delta * input[i]);
        }
    }
    std::vector<float> hidden_got(hidden_units.begin() + 1, hidden_units.end());
    std::vector<float> hidden_want(ref_hidden.begin() + 1, ref_hidden.end());
    bool ok = workload::close_enough("hidden", hidden_got, hidden_want, 1e-4, 1e-5);
    ok = workload::close_enough("weights", got, want, 1e-4, 1e-7) && ok;

    for (float* p : {d_input, d_weights, d_partial, d_old, d_delta}) CHECK(cudaFree(p));
    return workload::finish("backprop", size, ok,
                            "inputs=" + std::to_string(in) + ", hidden=16, launches=2");
}
