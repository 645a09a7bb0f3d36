#include "model/io/gather_write.h"

#include <unistd.h>

#include <cstdio>
#include <fmt/format.h>

namespace squall::io::gather {

std::string write_file(const std::string& path, const GridDims& mine, const Decomposition& dc,
                       const std::function<void(const std::string&, const std::vector<Block>&,
                                                std::string&)>& write_root,
                       const std::function<void()>& send, const std::function<void()>& on_renamed) {
    const Block block{mine.ioffset, mine.joffset, mine.imax, mine.jmax};
    std::vector<Block> blocks(dc.rank == 0 ? dc.nprocs : 0);
    MPI_Gather(&block, 4, MPI_INT, blocks.data(), 4, MPI_INT, 0, dc.comm);
    const std::string tmp = fmt::format("{}.tmp.{}", path, long(::getpid()));
    std::string error;
    if (dc.rank == 0) {
        write_root(tmp, blocks, error);
        if (error.empty() && std::rename(tmp.c_str(), path.c_str()) != 0)
            error = "rename to the final name";
        if (!error.empty())
            std::remove(tmp.c_str());
        else if (on_renamed)
            on_renamed();
    } else {
        send();
    }
    int n = int(error.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, dc.comm);
    error.resize(std::size_t(n));
    MPI_Bcast(error.data(), n, MPI_CHAR, 0, dc.comm);
    return error;
}

} // namespace squall::io::gather
