#include "model/core/stats_writer.h"

#include "model/core/model.h"

namespace squall {

template <typename T>
struct StatsWriter<T>::Impl {};

template <typename T>
StatsWriter<T>::StatsWriter(const Config&, const Grid<T>&, const Decomposition&) : impl_(new Impl) {}

template <typename T>
StatsWriter<T>::~StatsWriter() {
    delete impl_;
}

template <typename T>
void StatsWriter<T>::sample(Model<T>&) {}

template class StatsWriter<float>;
template class StatsWriter<double>;

} // namespace squall
