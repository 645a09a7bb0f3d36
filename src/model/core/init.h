#pragma once
#include <utility>

// Initial conditions from the case's `init` section.
#include "model/config/config.h"
#include "model/core/fields.h"
#include "model/grid.h"

namespace squall {

template <typename T>
void set_initial_fields(const Config& cfg, const Grid<T>& g, Fields<T>& f);

// The unperturbed initial scalar at height z (also the sponge's reference state).
double initial_scalar_profile(const InitConfig& in, double z);
// The unperturbed initial value of the passive scalar sc at height z.
double initial_passive_profile(const InitConfig& in, const ScalarConfig& sc, double z);
// The unperturbed initial wind (u, v) at height z (also the sponge's reference state).
std::pair<double, double> initial_wind_profile(const InitConfig& in, double z);

// Uniform random number in [-1, 1) from a counter-based hash of the global point, so the
// initial field does not depend on the MPI decomposition.
double random_at(unsigned long seed, int field, long gi, long gj, long k);

} // namespace squall
