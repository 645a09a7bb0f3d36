// stats_compare A B [--ignore ATTRIBUTE]...: exit 0 when the two statistics files hold the
// same datasets, sample for sample and byte for byte, and the same attributes (see
// stats_compare.h); otherwise print what differs and exit 1.
#include <cstdio>
#include <cstring>

#include "stats_compare.h"

int main(int argc, char** argv) {
    std::vector<std::string> files, ignore;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--ignore") == 0 && i + 1 < argc)
            ignore.push_back(argv[++i]);
        else
            files.push_back(argv[i]);
    }
    if (files.size() != 2) {
        std::fprintf(stderr, "usage: stats_compare A.h5 B.h5 [--ignore /ATTRIBUTE]...\n");
        return 2;
    }
    const auto diffs = squall::test::stats_differences(files[0], files[1], ignore);
    for (const auto& d : diffs) std::printf("%s\n", d.c_str());
    if (diffs.empty())
        std::printf("statistics equal: %zu samples\n", squall::test::stats_times(files[0]).size());
    return diffs.empty() ? 0 : 1;
}
