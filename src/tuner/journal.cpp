#include "tuner/journal.h"

#include "runtime/log.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace squall::tuner {

namespace fs = std::filesystem;
using nlohmann::json;

const char* status_name(Status s) {
    switch (s) {
    case Status::ok:
        return "ok";
    case Status::compile:
        return "compile";
    case Status::launch:
        return "launch";
    case Status::verify:
        return "verify";
    case Status::invalid:
        return "invalid";
    }
    return "?";
}

namespace {

Status status_from_name(const std::string& s) {
    for (Status v : {Status::ok, Status::compile, Status::launch, Status::verify, Status::invalid})
        if (s == status_name(v)) return v;
    throw std::invalid_argument("unknown status '" + s + "'");
}

json header_json(const JournalHeader& h, const rt::ConfigSpace& space) {
    json params = json::array();
    for (const auto& p : space.params()) params.push_back(p.name);
    json j = {{"type", "squall-tune-journal"},
              {"version", 1},
              {"key", h.key},
              {"problem", h.problem.extent},
              {"device", h.device},
              {"strategy", h.strategy},
              {"seed", h.seed},
              {"batch", h.batch},
              {"definition", h.definition},
              {"capture_hash", h.capture_hash},
              {"params", params}};
    // Only when it is not the default, so that journals from before it still resume.
    if (h.in_flight != 2) j["in_flight"] = h.in_flight;
    return j;
}

} // namespace

Journal::Journal(const rt::ConfigSpace& space, JournalHeader header)
    : space_(&space), header_(std::move(header)) {}

Journal::Journal(const rt::ConfigSpace& space, JournalHeader header, std::string path)
    : space_(&space), header_(std::move(header)), path_(std::move(path)) {
    std::error_code ec;
    if (fs::exists(path_, ec)) read();
    const bool fresh = recorded_.empty() && !final_;
    if (fresh) {
        if (fs::exists(path_, ec)) fs::remove(path_, ec);
        if (const auto dir = fs::path(path_).parent_path(); !dir.empty())
            fs::create_directories(dir, ec);
    }
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw JournalError(
            fmt::format("cannot write the tuning journal {}: {}", path_, std::strerror(errno)));
    if (fresh) write_line(header_json(header_, *space_).dump());
}

Journal::~Journal() {
    if (fd_ >= 0) ::close(fd_);
}

// Reads an earlier journal; one with another header is moved aside.
void Journal::read() {
    std::ifstream in(path_);
    if (!in) throw JournalError("cannot read the tuning journal " + path_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    if (lines.empty()) return;
    json head;
    try {
        head = json::parse(lines[0]);
    } catch (const std::exception&) {
    }
    const json want = header_json(header_, *space_);
    json head_same = head, want_same = want;
    if (head.is_object()) head_same.erase("capture_hash"), want_same.erase("capture_hash");
    if (head_same != want_same) {
        const std::string old = path_ + ".old";
        rt::log_warn("tuning journal {} is for another tune (its header differs); moved to {}",
                     path_, old);
        std::error_code ec;
        fs::rename(path_, old, ec);
        return;
    }
    if (head.value("capture_hash", "") != header_.capture_hash)
        rt::log_warn("tuning journal {} was measured on other captured data; resuming with it",
                     path_);
    bool cut_short = false;
    for (size_t n = 1; n < lines.size(); ++n) {
        try {
            const json j = json::parse(lines[n]);
            if (j.contains("final")) {
                const json& f = j.at("final");
                final_ = FinalRecord{
                    space_->config_from_json(f.at("config")), f.at("seconds").get<double>(),
                    f.at("default_seconds").get<double>(), f.at("evaluations").get<size_t>(),
                    f.at("rejected").get<size_t>()};
                continue;
            }
            Evaluation e;
            e.config = space_->config_from_json(j.at("config"));
            e.status = status_from_name(j.at("status").get<std::string>());
            if (e.status == Status::ok) e.seconds = j.at("seconds").get<double>();
            e.t = j.at("t").get<double>();
            e.is_default = j.value("default", false);
            e.same_program = j.value("same_program", false);
            e.detail = j.value("detail", "");
            index_[space_->format(e.config)] = recorded_.size();
            recorded_.push_back(std::move(e));
        } catch (const std::exception& e) {
            if (n + 1 == lines.size()) { // a process killed while writing
                rt::log_warn("tuning journal {}: line {} is cut short; dropped", path_, n + 1);
                cut_short = true;
                break;
            }
            throw JournalError(fmt::format("tuning journal {}: line {} is not a journal line: {}",
                                           path_, n + 1, e.what()));
        }
    }
    if (cut_short) { // rewritten without it, so that appends start on a fresh line
        std::ofstream out(path_, std::ios::trunc);
        for (size_t n = 0; n + 1 < lines.size(); ++n) out << lines[n] << '\n';
        if (!out) throw JournalError("cannot rewrite the tuning journal " + path_);
    }
}

const Evaluation* Journal::find(const rt::Config& c) const {
    auto it = index_.find(space_->format(c));
    return it == index_.end() ? nullptr : &recorded_[it->second];
}

void Journal::write_line(const std::string& line) {
    if (fd_ < 0) return;
    const std::string text = line + '\n';
    // One write per line (O_APPEND): a crash leaves at most the last line cut short.
    if (::write(fd_, text.data(), text.size()) != ssize_t(text.size()))
        throw JournalError(
            fmt::format("cannot append to the tuning journal {}: {}", path_, std::strerror(errno)));
}

void Journal::append(const Evaluation& e) {
    json j = {{"n", recorded_.size()},
              {"config", space_->config_to_json(e.config)},
              {"status", status_name(e.status)},
              {"t", e.t}};
    if (e.status == Status::ok) j["seconds"] = e.seconds;
    if (e.is_default) j["default"] = true;
    if (e.same_program) j["same_program"] = true;
    if (!e.detail.empty()) j["detail"] = e.detail;
    index_[space_->format(e.config)] = recorded_.size();
    recorded_.push_back(e);
    write_line(j.dump());
}

void Journal::finish(const FinalRecord& f) {
    final_ = f;
    write_line(json{{"final",
                     {{"config", space_->config_to_json(f.config)},
                      {"seconds", f.seconds},
                      {"default_seconds", f.default_seconds},
                      {"evaluations", f.evaluations},
                      {"rejected", f.rejected}}}}
                   .dump());
    if (fd_ >= 0) ::fsync(fd_);
}

} // namespace squall::tuner
