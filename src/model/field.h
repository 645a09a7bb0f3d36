#pragma once
// A 3-D field on the local grid, including ghost cells. Storage is a plain contiguous
// array owned through a Buffer so that a backend can later place it on the device.
#include <cstddef>
#include <memory>
#include <vector>

#include "model/grid.h"

namespace squall {

template <typename T>
class Field3d {
public:
    Field3d() = default;
    explicit Field3d(const GridDims& d) : d_(d), data_(static_cast<std::size_t>(d.ncells), T(0)) {}

    T* data() { return data_.data(); }
    const T* data() const { return data_.data(); }
    std::size_t size() const { return data_.size(); }
    const GridDims& dims() const { return d_; }

    T& operator()(int i, int j, int k) { return data_[i * d_.ii + j * d_.jj + k * d_.kk]; }
    T operator()(int i, int j, int k) const { return data_[i * d_.ii + j * d_.jj + k * d_.kk]; }

    void fill(T v) { std::fill(data_.begin(), data_.end(), v); }

private:
    GridDims d_{};
    std::vector<T> data_;
};

} // namespace squall
