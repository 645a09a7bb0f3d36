// The journal of a tune: every evaluation on disk, one JSON line each, as it happens. A
// tune that stops (Ctrl-C, a crash, a lost machine) and starts again with the same
// journal reads back what was measured and runs the same search without measuring it
// again (strategies are deterministic for one seed and one sequence of tells).
//
//   {"type":"squall-tune-journal","version":1,"key":...,"problem":[...],"device":...,
//    "strategy":...,"seed":...,"batch":...,"definition":...,"capture_hash":...,"params":[...]}
//   {"n":0,"config":{...},"status":"ok","seconds":0.00123,"t":0.84,"default":true}
//   {"final":{"config":{...},"seconds":...,"default_seconds":...,"evaluations":...,"rejected":...}}
#pragma once

#include "runtime/config_space.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace squall::tuner {

class JournalError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What became of one candidate: measured, or rejected at which stage.
enum class Status { ok, compile, launch, verify, invalid };
const char* status_name(Status s);

struct Evaluation {
    rt::Config config;
    Status status = Status::ok;
    double seconds = 0; // median time, when ok
    double t = 0;       // wall seconds since the tune started, counted across resumes
    bool is_default = false;
    // Generates the same kernel and launch as an earlier candidate, whose result it took
    // unmeasured (Evaluator::fingerprint).
    bool same_program = false;
    std::string detail; // why it failed
};

// The winner after the leading candidates were measured again.
struct FinalRecord {
    rt::Config config;
    double seconds = 0, default_seconds = 0;
    size_t evaluations = 0, rejected = 0;
};

// What a journal is for: a journal read back must match in every field.
struct JournalHeader {
    std::string key, device, strategy;
    rt::ProblemSize problem;
    uint64_t seed = 1;
    size_t batch = 0;
    std::string definition;   // hash of the kernel definition (sources included)
    std::string capture_hash; // the captured data; a change only warns
    size_t in_flight = 2;     // TuneOptions::batches_in_flight (in the file when not 2)
};

class Journal {
public:
    // In memory only.
    Journal(const rt::ConfigSpace& space, JournalHeader header);
    // On disk at `path`: reads back an earlier tune's evaluations when the file has the
    // same header (a truncated last line is dropped), else moves the file aside to
    // <path>.old with a warning and starts afresh. Throws JournalError when the file
    // cannot be read or written, or a line other than the last is not a journal line.
    Journal(const rt::ConfigSpace& space, JournalHeader header, std::string path);
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    const std::string& path() const { return path_; }
    const std::vector<Evaluation>& recorded() const { return recorded_; }
    // The recorded evaluation of c, nullptr when there is none.
    const Evaluation* find(const rt::Config& c) const;
    const std::optional<FinalRecord>& final_record() const { return final_; }
    // Wall time the earlier runs of this tune spent (the last recorded t).
    double resumed_seconds() const { return recorded_.empty() ? 0 : recorded_.back().t; }

    void append(const Evaluation& e);
    void finish(const FinalRecord& f);

private:
    void read();
    void write_line(const std::string& line);

    const rt::ConfigSpace* space_;
    JournalHeader header_;
    std::string path_;
    std::vector<Evaluation> recorded_;
    std::map<std::string, size_t> index_; // formatted configuration -> recorded_
    std::optional<FinalRecord> final_;
    int fd_ = -1;
};

} // namespace squall::tuner
