#pragma once
// Bridges the model to the statistics file: gathers what Statistics needs from the model.
#include "model/config/config.h"
#include "model/decomp.h"
#include "model/grid.h"

namespace squall {

template <typename T>
class Model;

template <typename T>
class StatsWriter {
public:
    StatsWriter(const Config& cfg, const Grid<T>& g, const Decomposition& decomp);
    ~StatsWriter();
    void sample(Model<T>& model);

private:
    struct Impl;
    Impl* impl_;
};

} // namespace squall
