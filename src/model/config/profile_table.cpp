// Profile tables in a case (init.profiles, forcing.file): a map of lists, or the name of a
// CSV, HDF5 or netCDF-4 file.
#include "model/config/reader.h"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace squall::cfg {

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Splits a CSV line at commas; `cols` gets each cell's 1-based column.
std::vector<std::string> split_csv(const std::string& line, std::vector<int>& cols) {
    std::vector<std::string> cells;
    cols.clear();
    std::size_t start = 0;
    while (true) {
        const auto comma = line.find(',', start);
        const std::string cell = line.substr(start, comma - start);
        const auto lead = cell.find_first_not_of(" \t");
        cells.push_back(trim(cell));
        cols.push_back(int(start + (lead == std::string::npos ? 0 : lead)) + 1);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return cells;
}

// A CSV file: a header naming the columns, then one row of numbers per height. Blank lines
// and lines starting with '#' are skipped. Errors name the file, line and column.
void read_csv(const std::string& path, const std::string& dotted,
              const std::vector<std::string>& allowed, ProfileTable& t) {
    std::ifstream in(path);
    if (!in)
        throw ConfigError(
            fmt::format("{}: cannot open the profile file named by {}", path, dotted));
    std::string line;
    int lineno = 0;
    std::vector<std::string> header;
    std::vector<int> cols;
    while (std::getline(in, line)) {
        ++lineno;
        const std::string body = trim(line);
        if (body.empty() || body[0] == '#') continue;
        auto fail = [&](int col, const std::string& msg) {
            throw ConfigError(fmt::format("{}:{}:{}: {}: {}", path, lineno, col, dotted, msg));
        };
        std::vector<std::string> cells = split_csv(line, cols);
        if (header.empty()) {
            for (std::size_t n = 0; n < cells.size(); ++n) {
                const std::string& name = cells[n];
                if (name != "z" && std::find(allowed.begin(), allowed.end(), name) == allowed.end())
                    fail(cols[n], fmt::format("unknown column '{}'{}", name,
                                              suggestion(dotted, name, allowed)));
                if (std::count(cells.begin(), cells.begin() + long(n), name))
                    fail(cols[n], fmt::format("column '{}' appears twice", name));
            }
            if (std::find(cells.begin(), cells.end(), "z") == cells.end())
                fail(1, "the header has no 'z' column");
            header = cells;
            for (const auto& name : header)
                if (name != "z") t.columns.push_back({name, {}});
            continue;
        }
        if (cells.size() != header.size())
            fail(1, fmt::format("row has {} values, the header names {}", cells.size(),
                                header.size()));
        for (std::size_t n = 0; n < cells.size(); ++n) {
            double x = 0;
            if (!parse_real(cells[n], x))
                fail(cols[n], fmt::format("'{}' is not a number ({})", cells[n], header[n]));
            if (header[n] == "z")
                t.z.push_back(x);
            else
                for (auto& [name, c] : t.columns)
                    if (name == header[n]) c.push_back(x);
        }
    }
    if (header.empty()) throw ConfigError(fmt::format("{}: {}: the file is empty", path, dotted));
}

// An HDF5 or netCDF-4 file: one-dimensional datasets at the root, z and any of the allowed
// names, read as doubles; other datasets are left alone (a netCDF file carries more).
void read_hdf5(const std::string& path, const std::string& dotted,
               const std::vector<std::string>& allowed, ProfileTable& t) {
    // HDF5's own error stack stays quiet: every failure becomes one message here.
    H5E_auto2_t old_func = nullptr;
    void* old_data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::string error;
    const hid_t file = std::filesystem::is_regular_file(path)
                           ? H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)
                           : H5I_INVALID_HID;
    auto read = [&](const std::string& name, std::vector<double>& out) {
        if (!error.empty() || H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) return false;
        const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
        const hid_t space = ds >= 0 ? H5Dget_space(ds) : H5I_INVALID_HID;
        hsize_t n = 0;
        if (space < 0 || H5Sget_simple_extent_ndims(space) != 1) {
            error = fmt::format("'{}' is not a one-dimensional dataset", name);
        } else {
            H5Sget_simple_extent_dims(space, &n, nullptr);
            out.resize(std::size_t(n));
            if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
                error = fmt::format("cannot read '{}' as numbers", name);
            // netCDF's packed values would need unpacking, and fill values stand for none.
            for (const char* attr : {"scale_factor", "add_offset"})
                if (error.empty() && H5Aexists(ds, attr) > 0)
                    error =
                        fmt::format("'{}' is packed ({}): store the values themselves", name, attr);
            for (std::size_t m = 0; error.empty() && m < out.size(); ++m)
                if (!std::isfinite(out[m]))
                    error = fmt::format("'{}'[{}] is not a finite number", name, m);
        }
        if (space >= 0) H5Sclose(space);
        if (ds >= 0) H5Dclose(ds);
        return error.empty();
    };
    if (file < 0) {
        error = std::filesystem::exists(path) ? "not an HDF5 or netCDF-4 file" : "no such file";
    } else {
        if (!read("z", t.z) && error.empty()) error = "it has no dataset 'z'";
        for (const auto& name : allowed) {
            std::vector<double> c;
            if (read(name, c)) t.columns.push_back({name, std::move(c)});
        }
        H5Fclose(file);
    }
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (!error.empty())
        throw ConfigError(
            fmt::format("{}: {}: cannot take the profile table from it: {}", path, dotted, error));
}

bool is_hdf5_name(const std::string& file) {
    const std::string ext = std::filesystem::path(file).extension().string();
    return ext == ".h5" || ext == ".hdf5" || ext == ".nc" || ext == ".nc4";
}

} // namespace

bool read_profile_table(CaseReader& r, Section& sec, const std::string& key,
                        const std::vector<std::string>& allowed, ProfileTable& out) {
    if (!sec.has(key)) return false;
    const std::string dotted = sec.dotted(key);
    ProfileTable t;
    std::string file;
    if (sec.is_scalar(key)) {
        sec.string(key, file);
        std::filesystem::path p(file);
        // A file named in the case is found beside it; one from the command line from here.
        if (p.is_relative() && !r.from_command_line(dotted))
            p = std::filesystem::path(r.file()).parent_path() / p;
        t.source = p.string();
        if (is_hdf5_name(file))
            read_hdf5(t.source, dotted, allowed, t);
        else
            read_csv(t.source, dotted, allowed, t);
    } else {
        std::vector<std::string> keys = {"z"};
        keys.insert(keys.end(), allowed.begin(), allowed.end());
        Section table = sec.child(key, keys);
        table.require("z");
        table.real_list("z", t.z);
        for (const auto& name : allowed) {
            std::vector<double> c;
            if (table.real_list(name, c)) t.columns.push_back({name, std::move(c)});
        }
    }
    // Rows: where a CSV row or a YAML list element is at fault, name it.
    auto where = [&](const std::string& col, std::size_t n) {
        return t.source.empty() ? fmt::format("{}.{}[{}]", dotted, col, n)
                                : fmt::format("{} (row {} of {})", dotted, n + 1, t.source);
    };
    if (t.z.empty()) r.fail_key(dotted, "the table has no rows");
    if (t.columns.empty()) r.fail_key(dotted, "the table has only z: give at least one profile");
    for (std::size_t n = 1; n < t.z.size(); ++n)
        if (!(t.z[n] > t.z[n - 1]))
            r.fail_key(dotted,
                       fmt::format("{}: z = {} is not above the row before ({}): heights "
                                   "must be strictly increasing",
                                   where("z", n), format_real(t.z[n]), format_real(t.z[n - 1])));
    for (const auto& [name, c] : t.columns)
        if (c.size() != t.z.size())
            r.fail_key(t.source.empty() ? dotted + "." + name : dotted,
                       fmt::format("column {} has {} values but z has {}: give one per height",
                                   name, c.size(), t.z.size()));
    out = std::move(t);
    return true;
}

} // namespace squall::cfg
