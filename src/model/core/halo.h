#pragma once
// Periodic ghost-cell exchange in x and y, through MPI when the direction is split over
// ranks and as a local copy when it is not. The y pass includes the x ghost columns so the
// corners are filled too.
#include <vector>

#include "model/decomp.h"
#include "model/grid.h"

namespace squall {

template <typename T>
class Halo {
public:
    Halo(const GridDims& d, const Decomposition& decomp);
    // Exchange all ghost cells of a 3-D array with nk levels (kcells for fields).
    void exchange(T* a, int nk) const;
    // Exchange the ghost cells of a 2-D (icells x jcells) array.
    void exchange_2d(T* a) const { exchange(a, 1); }

private:
    GridDims d_;
    const Decomposition* decomp_;
    mutable std::vector<T> send_, recv_;
    void exchange_x(T* a, int nk) const;
    void exchange_y(T* a, int nk) const;
};

} // namespace squall
