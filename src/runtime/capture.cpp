#include "runtime/capture.h"

#include "runtime/hash.h"
#include "runtime/log.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace squall::rt {

namespace fs = std::filesystem;
using nlohmann::json;

bool glob_match(std::string_view pattern, std::string_view text) {
    // Iterative matcher with backtracking to the last '*'.
    size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == text[t] || pattern[p] == '?')) {
            ++p, ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

CaptureSettings CaptureSettings::from_env() {
    CaptureSettings s;
    if (const char* c = std::getenv("SQUALL_CAPTURE")) {
        std::stringstream ss(c);
        std::string item;
        while (std::getline(ss, item, ',')) {
            item.erase(0, item.find_first_not_of(" \t"));
            item.erase(item.find_last_not_of(" \t") + 1);
            if (!item.empty()) s.patterns.push_back(item);
        }
    }
    auto number = [](const char* name, uint64_t fallback) {
        const char* v = std::getenv(name);
        if (!v || !*v) return fallback;
        char* end = nullptr;
        unsigned long long n = std::strtoull(v, &end, 10);
        if (*end != '\0') {
            log_warn("{}='{}' is not a number; using {}", name, v, fallback);
            return fallback;
        }
        return static_cast<uint64_t>(n);
    };
    s.skip = number("SQUALL_CAPTURE_SKIP", 0);
    s.max_bytes = number("SQUALL_CAPTURE_MAX_MB", 4096) << 20;
    if (const char* d = std::getenv("SQUALL_CAPTURE_DIR"); d && *d) s.dir = d;
    return s;
}

bool CaptureSettings::matches(std::string_view key) const {
    for (const auto& p : patterns)
        if (glob_match(p, key)) return true;
    return false;
}

uint64_t Capture::total_bytes() const {
    uint64_t n = 0;
    for (const auto& a : arrays) n += a.before.size() + a.after.size();
    return n;
}

Value scalar_value(DType t, const void* bytes) {
    auto get = [&](auto v) {
        std::memcpy(&v, bytes, sizeof v);
        return v;
    };
    switch (t) {
    case DType::i8:
        return Value(static_cast<long long>(get(int8_t{})));
    case DType::u8:
        return Value(static_cast<long long>(get(uint8_t{})));
    case DType::i16:
        return Value(static_cast<long long>(get(int16_t{})));
    case DType::u16:
        return Value(static_cast<long long>(get(uint16_t{})));
    case DType::i32:
        return Value(static_cast<long long>(get(int32_t{})));
    case DType::u32:
        return Value(static_cast<long long>(get(uint32_t{})));
    case DType::i64:
        return Value(static_cast<long long>(get(int64_t{})));
    case DType::u64:
        return Value(static_cast<long long>(get(uint64_t{})));
    case DType::f32:
        return Value(static_cast<double>(get(float{})));
    case DType::f64:
        return Value(get(double{}));
    }
    return Value();
}

namespace {

void write_file(const std::string& path, const std::vector<char>& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) throw CaptureError("cannot write capture file " + path);
}

std::vector<char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CaptureError("cannot read capture file " + path);
    return std::vector<char>((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
}

std::string stem_for(const std::string& dir, const Capture& c) {
    std::string key = c.kernel.value("key", "kernel");
    for (char& ch : key)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-') ch = '_';
    std::string base = fmt::format("{}_{}", key, c.problem.to_string());
    std::string stem = base;
    std::error_code ec;
    for (int i = 1; fs::exists(dir + "/" + stem + ".json", ec); ++i)
        stem = fmt::format("{}_{}", base, i);
    return stem;
}

} // namespace

std::string write_capture(const std::string& dir, Capture& c) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || access(dir.c_str(), W_OK) != 0)
        throw CaptureError(fmt::format("capture directory '{}' is not writable{}", dir,
                                       ec ? " (" + ec.message() + ")" : ""));
    const std::string stem = stem_for(dir, c);
    json args = json::array();
    for (auto [is_array, idx] : c.order) {
        if (!is_array) {
            const auto& s = c.scalars[idx];
            std::string hex;
            for (char b : s.raw) hex += fmt::format("{:02x}", static_cast<unsigned char>(b));
            args.push_back({{"name", s.name},
                            {"kind", "scalar"},
                            {"type", dtype_name(s.dtype)},
                            {"value", s.value},
                            {"bytes_hex", hex}});
            continue;
        }
        auto& a = c.arrays[idx];
        a.hash_before = hash64(a.before.data(), a.before.size());
        json j = {{"name", a.name},
                  {"kind", "array"},
                  {"type", dtype_name(a.dtype)},
                  {"access", access_name(a.access)},
                  {"count", a.count},
                  {"bytes", a.bytes()},
                  {"before_file", stem + "." + a.name + ".before.bin"},
                  {"before_hash", hex64(a.hash_before)}};
        write_file(dir + "/" + j["before_file"].get<std::string>(), a.before);
        if (a.access != Access::in) {
            a.hash_after = hash64(a.after.data(), a.after.size());
            j["after_file"] = stem + "." + a.name + ".after.bin";
            j["after_hash"] = hex64(a.hash_after);
            write_file(dir + "/" + j["after_file"].get<std::string>(), a.after);
        }
        args.push_back(j);
    }
    json doc = {{"type", "squall-capture"},         {"version", 1},
                {"key", c.kernel.value("key", "")}, {"kernel", c.kernel},
                {"problem_size", c.problem.extent}, {"config", c.config},
                {"device_name", c.device_name},     {"arguments", args}};
    // JSON last and via rename: a reader never sees a capture whose data is missing.
    const std::string path = dir + "/" + stem + ".json";
    const std::string tmp = path + fmt::format(".tmp.{}", getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << doc.dump(1) << '\n';
        if (!out) throw CaptureError("cannot write capture file " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) throw CaptureError("cannot rename " + tmp);
    return path;
}

Capture load_capture(const std::string& json_path, bool verify) {
    std::ifstream in(json_path);
    if (!in) throw CaptureError("cannot read capture " + json_path);
    json doc;
    try {
        doc = json::parse(in);
    } catch (const std::exception& e) {
        throw CaptureError(fmt::format("capture {} is not valid JSON: {}", json_path, e.what()));
    }
    const std::string dir = fs::path(json_path).parent_path().string();
    Capture c;
    try {
        if (doc.at("type") != "squall-capture" || doc.at("version") != 1)
            throw CaptureError("not a version 1 squall capture");
        c.kernel = doc.at("kernel");
        c.config = doc.at("config");
        c.device_name = doc.value("device_name", "");
        auto ext = doc.at("problem_size").get<std::vector<long long>>();
        for (size_t i = 0; i < ext.size() && i < 3; ++i) c.problem.extent[i] = ext[i];
        for (const auto& a : doc.at("arguments")) {
            if (a.at("kind") == "scalar") {
                CapturedScalar s;
                s.name = a.at("name");
                s.dtype = dtype_from_name(a.at("type"));
                std::string hex = a.at("bytes_hex");
                for (size_t i = 0; i + 1 < hex.size(); i += 2)
                    s.raw.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
                if (s.raw.size() != dtype_size(s.dtype))
                    throw CaptureError("scalar '" + s.name + "' has the wrong size");
                s.value = scalar_value(s.dtype, s.raw.data());
                c.order.emplace_back(false, c.scalars.size());
                c.scalars.push_back(std::move(s));
                continue;
            }
            CapturedArray arr;
            arr.name = a.at("name");
            arr.dtype = dtype_from_name(a.at("type"));
            arr.access = access_from_name(a.at("access"));
            arr.count = a.at("count");
            auto load = [&](const char* file_key, const char* hash_key, std::vector<char>& data,
                            uint64_t& hash) {
                std::string path = dir + "/" + a.at(file_key).get<std::string>();
                data = read_file(path);
                hash = hash64(data.data(), data.size());
                if (!verify) return;
                if (data.size() != arr.bytes())
                    throw CaptureError(fmt::format("capture file {} has {} bytes, expected {}",
                                                   path, data.size(), arr.bytes()));
                if (hex64(hash) != a.at(hash_key).get<std::string>())
                    throw CaptureError(
                        fmt::format("capture file {} fails its hash check ({} != {})", path,
                                    hex64(hash), a.at(hash_key).get<std::string>()));
            };
            load("before_file", "before_hash", arr.before, arr.hash_before);
            if (arr.access != Access::in)
                load("after_file", "after_hash", arr.after, arr.hash_after);
            c.order.emplace_back(true, c.arrays.size());
            c.arrays.push_back(std::move(arr));
        }
    } catch (const CaptureError& e) {
        throw CaptureError(fmt::format("capture {}: {}", json_path, e.what()));
    } catch (const std::exception& e) {
        throw CaptureError(fmt::format("capture {} is malformed: {}", json_path, e.what()));
    }
    return c;
}

} // namespace squall::rt
