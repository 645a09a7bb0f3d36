#pragma once
// Grid sizes on a benchmark's command line: "512,48x48x48" (cubes or NXxNYxNZ). Throws
// std::invalid_argument naming the bad item.
#include <array>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace squall::test {
inline std::vector<std::array<int, 3>> parse_grid_sizes(const std::string& text) {
    std::vector<std::array<int, 3>> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        std::array<int, 3> n{0, 0, 0};
        int c = 0;
        std::stringstream one(item);
        std::string part;
        while (c < 3 && std::getline(one, part, 'x')) n[size_t(c++)] = std::atoi(part.c_str());
        if (c == 1) n[1] = n[2] = n[0];
        if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0 || (c != 1 && c != 3))
            throw std::invalid_argument("bad grid size '" + item + "' (want NxNxN or N)");
        out.push_back(n);
    }
    return out;
}
} // namespace squall::test
