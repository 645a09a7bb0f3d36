#include "model/core/init.h"
#include "model/core/profiles.h"

#include <cmath>
#include <cstdint>
#include <numbers>
#include <tuple>

namespace squall {

double random_at(unsigned long seed, int field, long gi, long gj, long k) {
    // splitmix64 over a combined key: cheap, well mixed and reproducible everywhere.
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (std::uint64_t(field) << 56) ^
                      (std::uint64_t(gi) << 36) ^ (std::uint64_t(gj) << 16) ^ std::uint64_t(k);
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return double(x >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

namespace {

// The column `name` of the case's profile table at height z, or `fallback` without one.
double from_table(const InitConfig& in, const char* name, double z, double fallback) {
    const std::vector<double>* c = in.profiles.column(name);
    return c ? interpolate_linear(in.profiles.z, *c, z) : fallback;
}

} // namespace

double initial_scalar_profile(const InitConfig& in, double z) {
    if (in.type != InitType::profile) return in.th0;
    for (const char* name : {"th", "b", "thl"})
        if (in.profiles.column(name)) return from_table(in, name, z, in.th0);
    if (z > in.mixed_layer_height) return in.th0 + in.lapse_rate * (z - in.mixed_layer_height);
    return in.th0;
}

double initial_passive_profile(const InitConfig& in, const ScalarConfig& sc, double z) {
    if (in.type != InitType::profile) return sc.init_value;
    return from_table(in, sc.name.c_str(), z, sc.init_value);
}

std::pair<double, double> initial_wind_profile(const InitConfig& in, double z) {
    if (in.type != InitType::profile) return {in.u0, in.v0};
    return {from_table(in, "u", z, in.u0), from_table(in, "v", z, in.v0)};
}

template <typename T>
void set_initial_fields(const Config& cfg, const Grid<T>& g, Fields<T>& f) {
    const auto& d = g.d;
    const InitConfig& in = cfg.init;
    constexpr double pi = std::numbers::pi;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) {
                const long gi = d.ioffset + i - d.istart, gj = d.joffset + j - d.jstart;
                const long gk = k - d.kstart;
                const double x = g.x[i], xh = g.xh[i], z = g.z[k], zh = g.zh[k];
                double u = in.u0, v = in.v0, w = 0, s = in.th0;
                switch (in.type) {
                case InitType::zero:
                case InitType::couette:
                    break;
                case InitType::taylorgreen:
                    // 2-D Taylor-Green vortex in x-z (docs/validation.md).
                    u = std::sin(2 * pi * xh / cfg.grid.xsize) *
                        std::cos(2 * pi * z / cfg.grid.xsize);
                    w = -std::cos(2 * pi * x / cfg.grid.xsize) *
                        std::sin(2 * pi * zh / cfg.grid.xsize);
                    break;
                case InitType::random:
                case InitType::profile: {
                    s = initial_scalar_profile(in, z);
                    std::tie(u, v) = initial_wind_profile(in, z);
                    const bool perturb = in.perturb_height <= 0 || z < in.perturb_height;
                    if (perturb) {
                        const double a = in.velocity_amplitude();
                        u += a * random_at(in.seed, 0, gi, gj, gk);
                        v += a * random_at(in.seed, 1, gi, gj, gk);
                        if (k > d.kstart) w += a * random_at(in.seed, 2, gi, gj, gk);
                        s += in.perturb_amplitude * random_at(in.seed, 3, gi, gj, gk);
                    }
                    break;
                }
                }
                // The model's frame moves with the translation (grid.utrans, vtrans).
                f.u(i, j, k) = T(u - cfg.grid.utrans);
                f.v(i, j, k) = T(v - cfg.grid.vtrans);
                f.w(i, j, k) = T(w);
                if (f.has_scalar) f.s(i, j, k) = T(s);
                for (std::size_t n = 0; n < f.scalars.size(); ++n) {
                    const ScalarConfig& sc = cfg.scalars[n];
                    double c = initial_passive_profile(in, sc, z);
                    const bool perturbed =
                        in.type == InitType::random || in.type == InitType::profile;
                    if (perturbed && (in.perturb_height <= 0 || z < in.perturb_height))
                        c += sc.perturb_amplitude * random_at(in.seed, 4 + int(n), gi, gj, gk);
                    f.scalars[n].c(i, j, k) = T(c);
                }
            }
}

template void set_initial_fields(const Config&, const Grid<float>&, Fields<float>&);
template void set_initial_fields(const Config&, const Grid<double>&, Fields<double>&);

} // namespace squall
