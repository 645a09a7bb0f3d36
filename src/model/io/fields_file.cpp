// 3-D field files with the serial HDF5 library: rank 0 writes, one rank's block at a time.
#include "model/io/fields_file.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <optional>

#include "model/io/gather_write.h"
#include "model/io/h5.h"

namespace squall::io {

namespace {

using gather::Block;
using h5::check;
using h5::Id;

// The interior of a field, levels [kstart, kstart + nk), as O (float32 output or T).
template <typename O, typename T>
void pack(const Field3d<T>& a, int nk, std::vector<O>& buf, double offset) {
    const GridDims& d = a.dims();
    buf.resize(std::size_t(d.imax) * d.jmax * nk);
    std::size_t n = 0;
    for (int k = d.kstart; k < d.kstart + nk; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i)
                buf[n++] = offset == 0 ? O(a(i, j, k)) : O(T(a(i, j, k) + offset));
}

const char* zdim(Stagger s) {
    return s == Stagger::z ? "zh" : "z";
}
const char* ydim(Stagger s) {
    return s == Stagger::y ? "yh" : "y";
}
const char* xdim(Stagger s) {
    return s == Stagger::x ? "xh" : "x";
}

// Chunks of a rank's block (all blocks have its size) and as many levels as fill about
// 1 MiB, so that each block written fills whole chunks; with `checksum` each carries HDF5's
// Fletcher-32 checksum, which every HDF5 reader verifies, refusing a changed chunk.
template <typename O>
void set_chunks(hid_t dcpl, const Block& b, int nk, bool checksum, const std::string& name) {
    const std::size_t level = std::size_t(b.imax) * b.jmax * sizeof(O);
    const int levels = int(std::clamp<std::size_t>((std::size_t(1) << 20) / level, 1, nk));
    const hsize_t chunk[4] = {1, hsize_t(levels), hsize_t(b.jmax), hsize_t(b.imax)};
    check(H5Pset_chunk(dcpl, 4, chunk), name + " chunks");
    if (checksum) check(H5Pset_fletcher32(dcpl), name + " checksum filter");
}

// Rank 0: the file, then each field block by block; `error` names the first failed step.
template <typename O, typename T>
void write_on_root(const std::string& tmp, const FieldsInfo& info,
                   const std::vector<OutputField<T>>& fields, const Decomposition& dc,
                   const std::vector<Block>& blocks, std::string& error) {
    const h5::Quiet quiet;
    gather::Steps attempt(error);
    const GridDims& d = fields.at(0).field->dims();
    std::optional<Id> file;
    attempt([&] {
        file.emplace(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), h5::close_file,
                     "create");
        h5::write_string_attr(*file, "case", info.case_name);
        h5::write_string_attr(*file, "squall_version", info.version);
        h5::write_string_attr(*file, "title", "squall 3-D fields");
        h5::write_scale(*file, "time", {info.time}, "s", "model time");
        h5::write_scale(*file, "x", info.x, "m", "x of the cell centres");
        h5::write_scale(*file, "xh", info.xh, "m", "x of the cell faces");
        h5::write_scale(*file, "y", info.y, "m", "y of the cell centres");
        h5::write_scale(*file, "yh", info.yh, "m", "y of the cell faces");
        h5::write_scale(*file, "z", info.z, "m", "height of the cell centres");
        h5::write_scale(*file, "zh", info.zh, "m", "height of the cell faces");
    });
    std::vector<O> buf;
    std::map<std::string, std::vector<std::pair<std::string, int>>> refs;
    for (const auto& f : fields) {
        const int nk = f.stagger == Stagger::z ? d.ktot + 1 : d.ktot;
        const hsize_t dims[4] = {1, hsize_t(nk), hsize_t(d.jtot), hsize_t(d.itot)};
        std::optional<Id> space, ds;
        attempt([&] {
            space.emplace(H5Screate_simple(4, dims, nullptr), H5Sclose, f.name + " space");
            const Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, f.name + " properties");
            set_chunks<O>(dcpl, blocks.at(0), nk, info.checksum, f.name);
            ds.emplace(H5Dcreate2(*file, f.name.c_str(), h5::file_type<O>(), *space, H5P_DEFAULT,
                                  dcpl, H5P_DEFAULT),
                       H5Dclose, f.name);
            h5::write_string_attr(*ds, "units", f.units);
            h5::write_string_attr(*ds, "long_name", f.long_name);
            h5::attach(*file, *ds,
                       {"/time", std::string("/") + zdim(f.stagger),
                        std::string("/") + ydim(f.stagger), std::string("/") + xdim(f.stagger)});
            const std::string p = "/" + f.name;
            refs["/time"].push_back({p, 0});
            refs[std::string("/") + zdim(f.stagger)].push_back({p, 1});
            refs[std::string("/") + ydim(f.stagger)].push_back({p, 2});
            refs[std::string("/") + xdim(f.stagger)].push_back({p, 3});
        });
        gather::write_blocks(attempt, ds, space, 1, nk, f.name, blocks, dc, buf,
                             [&] { pack(*f.field, nk, buf, f.offset); });
    }
    attempt([&] {
        h5::write_reference_lists(*file, refs);
        check(H5Fflush(*file, H5F_SCOPE_GLOBAL), "flush");
        file->close("close");
    });
}

template <typename O, typename T>
void send_blocks(const std::vector<OutputField<T>>& fields, const Decomposition& dc) {
    // One field at a time: rank 0 receives one rank's block beside its own fields.
    std::vector<O> buf;
    for (const auto& f : fields) {
        const GridDims& d = f.field->dims();
        pack(*f.field, f.stagger == Stagger::z ? d.ktot + 1 : d.ktot, buf, f.offset);
        MPI_Send(buf.data(), int(buf.size()), mpi_type<O>(), 0, 0, dc.comm);
    }
}

} // namespace

std::string fields_name(const std::string& case_name, long long itime) {
    return fmt::format("{}.fields.{:020d}.h5", case_name, itime);
}

template <typename T>
void write_fields(const std::string& path, const FieldsInfo& info,
                  const std::vector<OutputField<T>>& fields, const Decomposition& dc) {
    auto write_root = [&](const std::string& tmp, const std::vector<Block>& blocks,
                          std::string& error) {
        if (!info.overwrite && std::filesystem::exists(path))
            error = "the file exists (use --overwrite to replace it)";
        // The blocks are received (and dropped) after a refusal too: the senders go on.
        if (info.single)
            write_on_root<float>(tmp, info, fields, dc, blocks, error);
        else
            write_on_root<T>(tmp, info, fields, dc, blocks, error);
    };
    auto send = [&] {
        if (info.single)
            send_blocks<float>(fields, dc);
        else
            send_blocks<T>(fields, dc);
    };
    const std::string error =
        gather::write_file(path, fields.at(0).field->dims(), dc, write_root, send);
    if (!error.empty())
        throw OutputError(fmt::format("cannot write 3-D fields {}: {}", path, error));
}

template void write_fields<float>(const std::string&, const FieldsInfo&,
                                  const std::vector<OutputField<float>>&, const Decomposition&);
template void write_fields<double>(const std::string&, const FieldsInfo&,
                                   const std::vector<OutputField<double>>&, const Decomposition&);

} // namespace squall::io
