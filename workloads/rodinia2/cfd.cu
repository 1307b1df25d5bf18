// CFD (Rodinia 3.1 "cfd", euler3d): finite-volume solver of the 3D Euler equations for compressible flow on an
// unstructured mesh whose elements each have 4 faces (neighbour index, or -1 for a wall, -2 for the far field).
// Per iteration: copy the state, compute each element's local time step (compute_step_factor), then 3 Runge-Kutta
// stages of compute_flux (per element: flux through each face from its own and its neighbour's state, with
// artificial viscosity; neighbour loads are the irregular gathers) and time_step (state = old + factor * flux).
// One thread per element, 192-thread blocks, structure-of-arrays layout (variable v of element i at v*nelr + i).
// The benchmark reads a mesh file; this program generates a synthetic mesh with the same shape (see README).
#include <algorithm>
#include <cmath>
#include <string>

#include "common.cuh"

#ifndef CFD_PAPER_ITERATIONS
#define CFD_PAPER_ITERATIONS 2000  // the benchmark's `iterations`
#endif

namespace {

constexpr int kBlock = 192;
constexpr int kNnb = 4;
constexpr int kRk = 3;
constexpr int kNvar = 5;  // density, momentum x/y/z, density * energy
constexpr int kVarDensity = 0;
constexpr int kVarMomentum = 1;
constexpr int kVarDensityEnergy = 4;
constexpr float kGamma = 1.4f;
constexpr float kMach = 1.2f;
constexpr float kSmoothing = 0.2f;

struct Vec3 {
    float x, y, z;
};

// Far-field state and its flux contributions.
struct FarField {
    float variable[kNvar];
    Vec3 fc_momentum_x, fc_momentum_y, fc_momentum_z, fc_density_energy;
};
__constant__ FarField c_ff;

__host__ __device__ inline float pressure_of(float density, float density_energy, float speed_sqd) {
    return (kGamma - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
}
__host__ __device__ inline float sound_speed(float density, float pressure) {
    return sqrtf(kGamma * pressure / density);
}
__host__ __device__ inline void flux_contribution(float density_energy, Vec3 m, Vec3 v, float pressure, Vec3& fx, Vec3& fy,
                                                  Vec3& fz, Vec3& fde) {
    fx = {m.x * v.x + pressure, m.x * v.y, m.x * v.z};
    fy = {fx.y, m.y * v.y + pressure, m.y * v.z};
    fz = {fx.z, fy.z, m.z * v.z + pressure};
    const float de_p = density_energy + pressure;
    fde = {v.x * de_p, v.y * de_p, v.z * de_p};
}

// The mesh and state arrays, structure of arrays: variable v of element e at v * nelr + e, neighbour j at
// j * nelr + e, normal component d of face j at (j + d * 4) * nelr + e.
struct Mesh {
    int nelr;
    const float* variables;
    const int* surrounding;
    const float* normals;
    __host__ __device__ float var(int v, int e) const { return variables[v * nelr + e]; }
    __host__ __device__ int neighbour(int e, int j) const { return surrounding[j * nelr + e]; }
    __host__ __device__ float normal(int e, int j, int d) const { return normals[(j + d * kNnb) * nelr + e]; }
};

// One element's flux, shared by the kernel and the host reference.
__host__ __device__ inline void element_flux(int i, const Mesh& mesh, const FarField& ff, float out[kNvar]) {
    auto var = [&](int v, int e) { return mesh.var(v, e); };
    auto neighbour = [&](int e, int j) { return mesh.neighbour(e, j); };
    auto normal = [&](int e, int j, int d) { return mesh.normal(e, j, d); };
    const float density_i = var(kVarDensity, i);
    const Vec3 momentum_i = {var(kVarMomentum + 0, i), var(kVarMomentum + 1, i), var(kVarMomentum + 2, i)};
    const float density_energy_i = var(kVarDensityEnergy, i);
    const Vec3 velocity_i = {momentum_i.x / density_i, momentum_i.y / density_i, momentum_i.z / density_i};
    const float speed_sqd_i = velocity_i.x * velocity_i.x + velocity_i.y * velocity_i.y + velocity_i.z * velocity_i.z;
    const float speed_i = sqrtf(speed_sqd_i);
    const float pressure_i = pressure_of(density_i, density_energy_i, speed_sqd_i);
    const float sound_i = sound_speed(density_i, pressure_i);
    Vec3 fx_i, fy_i, fz_i, fde_i;
    flux_contribution(density_energy_i, momentum_i, velocity_i, pressure_i, fx_i, fy_i, fz_i, fde_i);

    float flux_density = 0.0f, flux_density_energy = 0.0f;
    Vec3 flux_momentum = {0.0f, 0.0f, 0.0f};
    for (int j = 0; j < kNnb; ++j) {
        const int nb = neighbour(i, j);
        const Vec3 n = {normal(i, j, 0), normal(i, j, 1), normal(i, j, 2)};
        const float normal_len = sqrtf(n.x * n.x + n.y * n.y + n.z * n.z);
        if (nb >= 0) {
            const float density_nb = var(kVarDensity, nb);
            const Vec3 momentum_nb = {var(kVarMomentum + 0, nb), var(kVarMomentum + 1, nb), var(kVarMomentum + 2, nb)};
            const float density_energy_nb = var(kVarDensityEnergy, nb);
            const Vec3 velocity_nb = {momentum_nb.x / density_nb, momentum_nb.y / density_nb,
                                      momentum_nb.z / density_nb};
            const float speed_sqd_nb =
                velocity_nb.x * velocity_nb.x + velocity_nb.y * velocity_nb.y + velocity_nb.z * velocity_nb.z;
            const float pressure_nb = pressure_of(density_nb, density_energy_nb, speed_sqd_nb);
            const float sound_nb = sound_speed(density_nb, pressure_nb);
            Vec3 fx_nb, fy_nb, fz_nb, fde_nb;
            flux_contribution(density_energy_nb, momentum_nb, velocity_nb, pressure_nb, fx_nb, fy_nb, fz_nb, fde_nb);

            // Artificial viscosity.
            float factor = -normal_len * kSmoothing * 0.5f * (speed_i + sqrtf(speed_sqd_nb) + sound_i + sound_nb);
            flux_density += factor * (density_i - density_nb);
            flux_density_energy += factor * (density_energy_i - density_energy_nb);
            flux_momentum.x += factor * (momentum_i.x - momentum_nb.x);
            flux_momentum.y += factor * (momentum_i.y - momentum_nb.y);
            flux_momentum.z += factor * (momentum_i.z - momentum_nb.z);
            // Accumulated central flux, one normal component at a time.
            factor = 0.5f * n.x;
            flux_density += factor * (momentum_nb.x + momentum_i.x);
            flux_density_energy += factor * (fde_nb.x + fde_i.x);
            flux_momentum.x += factor * (fx_nb.x + fx_i.x);
            flux_momentum.y += factor * (fy_nb.x + fy_i.x);
            flux_momentum.z += factor * (fz_nb.x + fz_i.x);
            factor = 0.5f * n.y;
            flux_density += factor * (momentum_nb.y + momentum_i.y);
            flux_density_energy += factor * (fde_nb.y + fde_i.y);
            flux_momentum.x += factor * (fx_nb.y + fx_i.y);
            flux_momentum.y += factor * (fy_nb.y + fy_i.y);
            flux_momentum.z += factor * (fz_nb.y + fz_i.y);
            factor = 0.5f * n.z;
            flux_density += factor * (momentum_nb.z + momentum_i.z);
            flux_density_energy += factor * (fde_nb.z + fde_i.z);
            flux_momentum.x += factor * (fx_nb.z + fx_i.z);
            flux_momentum.y += factor * (fy_nb.z + fy_i.z);
            flux_momentum.z += factor * (fz_nb.z + fz_i.z);
        } else if (nb == -1) {
            // Wall: only the pressure pushes.
            flux_momentum.x += n.x * pressure_i;
            flux_momentum.y += n.y * pressure_i;
            flux_momentum.z += n.z * pressure_i;
        } else if (nb == -2) {
            // Far field.
            float factor = 0.5f * n.x;
            flux_density += factor * (ff.variable[kVarMomentum + 0] + momentum_i.x);
            flux_density_energy += factor * (ff.fc_density_energy.x + fde_i.x);
            flux_momentum.x += factor * (ff.fc_momentum_x.x + fx_i.x);
            flux_momentum.y += factor * (ff.fc_momentum_y.x + fy_i.x);
            flux_momentum.z += factor * (ff.fc_momentum_z.x + fz_i.x);
            factor = 0.5f * n.y;
            flux_density += factor * (ff.variable[kVarMomentum + 1] + momentum_i.y);
            flux_density_energy += factor * (ff.fc_density_energy.y + fde_i.y);
            flux_momentum.x += factor * (ff.fc_momentum_x.y + fx_i.y);
            flux_momentum.y += factor * (ff.fc_momentum_y.y + fy_i.y);
            flux_momentum.z += factor * (ff.fc_momentum_z.y + fz_i.y);
            factor = 0.5f * n.z;
            flux_density += factor * (ff.variable[kVarMomentum + 2] + momentum_i.z);
            flux_density_energy += factor * (ff.fc_density_energy.z + fde_i.z);
            flux_momentum.x += factor * (ff.fc_momentum_x.z + fx_i.z);
            flux_momentum.y += factor * (ff.fc_momentum_y.z + fy_i.z);
            flux_momentum.z += factor * (ff.fc_momentum_z.z + fz_i.z);
        }
    }
    out[kVarDensity] = flux_density;
    out[kVarMomentum + 0] = flux_momentum.x;
    out[kVarMomentum + 1] = flux_momentum.y;
    out[kVarMomentum + 2] = flux_momentum.z;
    out[kVarDensityEnergy] = flux_density_energy;
}

__host__ __device__ inline float step_factor_of(float density, Vec3 m, float density_energy, float area) {
    const Vec3 v = {m.x / density, m.y / density, m.z / density};
    const float speed_sqd = v.x * v.x + v.y * v.y + v.z * v.z;
    const float pressure = pressure_of(density, density_energy, speed_sqd);
    const float sound = sound_speed(density, pressure);
    return 0.5f / (sqrtf(area) * (sqrtf(speed_sqd) + sound));
}

__global__ void compute_step_factor(int nelr, const float* variables, const float* areas, float* step_factors) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float density = variables[kVarDensity * nelr + i];
    const Vec3 m = {variables[(kVarMomentum + 0) * nelr + i], variables[(kVarMomentum + 1) * nelr + i],
                    variables[(kVarMomentum + 2) * nelr + i]};
    const float density_energy = variables[kVarDensityEnergy * nelr + i];
    step_factors[i] = step_factor_of(density, m, density_energy, areas[i]);
}

__global__ void compute_flux(int nelr, const int* elements_surrounding, const float* normals, const float* variables,
                             float* fluxes) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const Mesh mesh{nelr, variables, elements_surrounding, normals};
    float out[kNvar];
    element_flux(i, mesh, c_ff, out);
    for (int v = 0; v < kNvar; ++v) fluxes[v * nelr + i] = out[v];
}

__global__ void time_step(int j, int nelr, const float* old_variables, float* variables, const float* step_factors,
                          const float* fluxes) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float factor = step_factors[i] / static_cast<float>(kRk + 1 - j);
    for (int v = 0; v < kNvar; ++v) variables[v * nelr + i] = old_variables[v * nelr + i] + factor * fluxes[v * nelr + i];
}

FarField far_field() {
    FarField ff{};
    const float angle = 0.0f;  // angle of attack
    ff.variable[kVarDensity] = 1.4f;
    const float ff_pressure = 1.0f;
    const float ff_speed_of_sound = std::sqrt(kGamma * ff_pressure / ff.variable[kVarDensity]);
    const float ff_speed = kMach * ff_speed_of_sound;
    const Vec3 ff_velocity = {ff_speed * std::cos(angle), ff_speed * std::sin(angle), 0.0f};
    ff.variable[kVarMomentum + 0] = ff.variable[kVarDensity] * ff_velocity.x;
    ff.variable[kVarMomentum + 1] = ff.variable[kVarDensity] * ff_velocity.y;
    ff.variable[kVarMomentum + 2] = ff.variable[kVarDensity] * ff_velocity.z;
    ff.variable[kVarDensityEnergy] =
        ff.variable[kVarDensity] * (0.5f * ff_speed * ff_speed) + ff_pressure / (kGamma - 1.0f);
    const Vec3 m = {ff.variable[kVarMomentum + 0], ff.variable[kVarMomentum + 1], ff.variable[kVarMomentum + 2]};
    const Vec3 v = {m.x / ff.variable[kVarDensity], m.y / ff.variable[kVarDensity], m.z / ff.variable[kVarDensity]};
    const float speed_sqd = v.x * v.x + v.y * v.y + v.z * v.z;
    const float pressure = pressure_of(ff.variable[kVarDensity], ff.variable[kVarDensityEnergy], speed_sqd);
    flux_contribution(ff.variable[kVarDensityEnergy], m, v, pressure, ff.fc_momentum_x, ff.fc_momentum_y,
                      ff.fc_momentum_z, ff.fc_density_energy);
    return ff;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "cfd");
    // Rodinia's run script: `euler3d fvcorr.domn.097K` (97,046 elements), 2000 iterations (euler3d.cu).
    const bool paper = size == workload::Size::paper;
    const int width = paper ? 398 : 144;   // synthetic mesh: a width x height sheet of elements
    const int height = paper ? 244 : 128;  // 398 * 244 = 97,112 ~ 97K elements
    // CFD_ITERATIONS overrides the iteration count: the paper mesh over fewer iterations, whose full timing run
    // fits in a working session (docs/sampling.md measures sampling's real error on it).
    int iterations = paper ? CFD_PAPER_ITERATIONS : 1;
    if (const char* e = std::getenv("CFD_ITERATIONS")) iterations = std::atoi(e);
    const int nel = width * height;
    const int nelr = kBlock * ((nel + kBlock - 1) / kBlock);

    // Synthetic mesh: cell (x, y) has faces -x, +x, -y, +y; the bottom edge is a wall (-1), the other edges far
    // field (-2). Element numbers are shuffled within windows of 256 so that neighbour loads scatter the way the
    // file-ordered mesh's do. Opposite faces of a shared face carry opposite normals.
    workload::Random rng(97);
    std::vector<int> number(nel);
    for (int i = 0; i < nel; ++i) number[i] = i;
    for (int w = 0; w < nel; w += 256) {
        const int len = std::min(256, nel - w);
        for (int k = len - 1; k > 0; --k) std::swap(number[w + k], number[w + static_cast<int>(rng.below(k + 1))]);
    }
    std::vector<float> face_x((width + 1) * height * 3), face_y(width * (height + 1) * 3);
    for (float& f : face_x) f = rng.uniform();
    for (float& f : face_y) f = rng.uniform();
    auto normal_x = [&](int fx, int y) {  // face between cells (fx-1, y) and (fx, y), pointing +x
        const float* u = &face_x[(y * (width + 1) + fx) * 3];
        return Vec3{0.35f + 0.1f * u[0], 0.06f * (u[1] - 0.5f), 0.06f * (u[2] - 0.5f)};
    };
    auto normal_y = [&](int x, int fy) {  // face between cells (x, fy-1) and (x, fy), pointing +y
        const float* u = &face_y[(fy * width + x) * 3];
        return Vec3{0.06f * (u[0] - 0.5f), 0.35f + 0.1f * u[1], 0.06f * (u[2] - 0.5f)};
    };
    std::vector<float> areas(nelr), normals(nelr * kNnb * 3);
    std::vector<int> surrounding(nelr * kNnb);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const int e = number[y * width + x];
            areas[e] = 0.8f + 0.4f * rng.uniform();
            const Vec3 nx0 = normal_x(x, y), nx1 = normal_x(x + 1, y), ny0 = normal_y(x, y), ny1 = normal_y(x, y + 1);
            const Vec3 face_normal[kNnb] = {{-nx0.x, -nx0.y, -nx0.z}, nx1, {-ny0.x, -ny0.y, -ny0.z}, ny1};
            const int nb[kNnb] = {x > 0 ? number[y * width + x - 1] : -2, x + 1 < width ? number[y * width + x + 1] : -2,
                                  y > 0 ? number[(y - 1) * width + x] : -1,
                                  y + 1 < height ? number[(y + 1) * width + x] : -2};
            for (int j = 0; j < kNnb; ++j) {
                surrounding[j * nelr + e] = nb[j];
                normals[(j + 0 * kNnb) * nelr + e] = face_normal[j].x;
                normals[(j + 1 * kNnb) * nelr + e] = face_normal[j].y;
                normals[(j + 2 * kNnb) * nelr + e] = face_normal[j].z;
            }
        }
    }
    // Padding elements copy the last element (as the benchmark pads to a whole number of blocks).
    for (int e = nel; e < nelr; ++e) {
        areas[e] = areas[nel - 1];
        for (int j = 0; j < kNnb; ++j) {
            surrounding[j * nelr + e] = surrounding[j * nelr + nel - 1];
            for (int d = 0; d < 3; ++d) normals[(j + d * kNnb) * nelr + e] = normals[(j + d * kNnb) * nelr + nel - 1];
        }
    }

    // Initial state: the far field, with a density and energy bump so that the flow is not uniform.
    const FarField ff = far_field();
    std::vector<float> variables(nelr * kNvar);
    for (int e = 0; e < nelr; ++e) {
        const float bump = 1.0f + 0.1f * rng.uniform();
        for (int v = 0; v < kNvar; ++v) variables[v * nelr + e] = ff.variable[v] * (v == kVarDensity || v == kVarDensityEnergy ? bump : 1.0f);
    }

    CHECK(cudaMemcpyToSymbol(c_ff, &ff, sizeof(FarField)));
    float* d_areas = workload::to_device(areas);
    int* d_surrounding = workload::to_device(surrounding);
    float* d_normals = workload::to_device(normals);
    float* d_variables = workload::to_device(variables);
    float* d_old = workload::device_zeros<float>(variables.size());
    float* d_fluxes = workload::device_zeros<float>(variables.size());
    float* d_step = workload::device_zeros<float>(nelr);
    const int blocks = nelr / kBlock;
    int launches = 0;
    for (int it = 0; it < iterations; ++it) {
        CHECK(cudaMemcpy(d_old, d_variables, variables.size() * sizeof(float), cudaMemcpyDeviceToDevice));
        compute_step_factor<<<blocks, kBlock>>>(nelr, d_variables, d_areas, d_step);
        CHECK_LAUNCH();
        ++launches;
        for (int j = 0; j < kRk; ++j) {
            compute_flux<<<blocks, kBlock>>>(nelr, d_surrounding, d_normals, d_variables, d_fluxes);
            CHECK_LAUNCH();
            time_step<<<blocks, kBlock>>>(j, nelr, d_old, d_variables, d_step, d_fluxes);
            CHECK_LAUNCH();
            launches += 2;
        }
    }
    const std::vector<float> got_all = workload::to_host(d_variables, variables.size());

    // Host reference: the same scheme in the same order.
    std::vector<float> old(variables.size()), fluxes(variables.size()), step(nelr);
    auto var = [&](int v, int e) { return variables[v * nelr + e]; };
    const Mesh mesh{nelr, variables.data(), surrounding.data(), normals.data()};
    for (int it = 0; it < iterations; ++it) {
        old = variables;
        for (int e = 0; e < nelr; ++e)
            step[e] = step_factor_of(var(kVarDensity, e),
                                     {var(kVarMomentum, e), var(kVarMomentum + 1, e), var(kVarMomentum + 2, e)},
                                     var(kVarDensityEnergy, e), areas[e]);
        for (int j = 0; j < kRk; ++j) {
            for (int e = 0; e < nelr; ++e) {
                float out[kNvar];
                element_flux(e, mesh, ff, out);
                for (int v = 0; v < kNvar; ++v) fluxes[v * nelr + e] = out[v];
            }
            for (int e = 0; e < nelr; ++e) {
                const float factor = step[e] / static_cast<float>(kRk + 1 - j);
                for (int v = 0; v < kNvar; ++v) variables[v * nelr + e] = old[v * nelr + e] + factor * fluxes[v * nelr + e];
            }
        }
    }
    std::vector<float> got, want;
    for (int v = 0; v < kNvar; ++v)
        for (int e = 0; e < nel; ++e) {
            got.push_back(got_all[v * nelr + e]);
            want.push_back(variables[v * nelr + e]);
        }
    bool ok = workload::close_enough("variables", got, want, 1e-3, 1e-4);
    for (float w : want) ok = ok && std::isfinite(w);

    for (void* p : {static_cast<void*>(d_areas), static_cast<void*>(d_surrounding), static_cast<void*>(d_normals),
                    static_cast<void*>(d_variables), static_cast<void*>(d_old), static_cast<void*>(d_fluxes),
                    static_cast<void*>(d_step)})
        CHECK(cudaFree(p));
    return workload::finish("cfd", size, ok,
                            std::to_string(nel) + " elements, " + std::to_string(iterations) + " iterations, " +
                                std::to_string(launches) + " launches");
}
