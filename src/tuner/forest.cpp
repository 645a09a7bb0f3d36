// Model-based search with a small random forest as the surrogate of log time.
#include "tuner/strategy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace squall::tuner {

namespace {

constexpr size_t kInitial = 16;  // random proposals before the model is used
constexpr double kExplore = 0.1; // share of purely random proposals after that
constexpr size_t kTrees = 16;
constexpr size_t kMinLeaf = 2;
constexpr size_t kRandomCandidates = 128;
constexpr size_t kParents = 4; // best measured configurations whose neighbours compete
constexpr int kDescentSteps = 8;
constexpr double kOptimism = 0.5;

// A regression tree over value positions: a node splits on "position of parameter
// `feature` <= threshold".
struct Tree {
    struct Node {
        int feature = -1; // -1: a leaf
        uint16_t threshold = 0;
        int left = 0, right = 0;
        double value = 0;
    };
    std::vector<Node> nodes;

    double predict(const ConfigKey& x) const {
        int n = 0;
        while (nodes[size_t(n)].feature >= 0) {
            const Node& node = nodes[size_t(n)];
            n = x[size_t(node.feature)] <= node.threshold ? node.left : node.right;
        }
        return nodes[size_t(n)].value;
    }
};

struct Fitter {
    const std::vector<ConfigKey>& x;
    const std::vector<double>& y;
    std::mt19937_64& rng;
    Tree tree;

    int grow(std::vector<size_t>& rows) {
        const int id = int(tree.nodes.size());
        tree.nodes.emplace_back();
        double mean = 0;
        for (size_t r : rows) mean += y[r];
        mean /= double(rows.size());
        tree.nodes[size_t(id)].value = mean;
        if (rows.size() < 2 * kMinLeaf) return id;

        // The split with the least squared error, over a random half of the parameters.
        const size_t nf = x[0].size();
        std::vector<size_t> features(nf);
        std::iota(features.begin(), features.end(), size_t(0));
        std::shuffle(features.begin(), features.end(), rng);
        features.resize(std::max<size_t>(1, (nf + 1) / 2));
        double best_err = std::numeric_limits<double>::infinity();
        int best_f = -1;
        uint16_t best_t = 0;
        for (size_t f : features) {
            std::sort(rows.begin(), rows.end(),
                      [&](size_t a, size_t b) { return x[a][f] < x[b][f]; });
            double total = 0, total2 = 0;
            for (size_t r : rows) total += y[r], total2 += y[r] * y[r];
            double left = 0, left2 = 0;
            for (size_t n = 0; n + 1 < rows.size(); ++n) {
                left += y[rows[n]], left2 += y[rows[n]] * y[rows[n]];
                if (x[rows[n]][f] == x[rows[n + 1]][f]) continue;
                const double nl = double(n + 1), nr = double(rows.size() - n - 1);
                if (nl < kMinLeaf || nr < kMinLeaf) continue;
                const double right = total - left, right2 = total2 - left2;
                const double err = (left2 - left * left / nl) + (right2 - right * right / nr);
                if (err < best_err - 1e-12) best_err = err, best_f = int(f), best_t = x[rows[n]][f];
            }
        }
        if (best_f < 0) return id;
        std::vector<size_t> l, r;
        for (size_t row : rows) (x[row][size_t(best_f)] <= best_t ? l : r).push_back(row);
        const int li = grow(l);
        const int ri = grow(r);
        Tree::Node& node = tree.nodes[size_t(id)];
        node.feature = best_f, node.threshold = best_t, node.left = li, node.right = ri;
        return id;
    }
};

// Additive main effects: ridge regression of y on the one-hot encoding of every
// parameter's value position, solved by a Cholesky factorisation.
class Additive {
public:
    Additive(const std::vector<ConfigKey>& x, const std::vector<double>& y,
             const std::vector<size_t>& counts) {
        for (size_t c : counts) offset_.push_back(dim_), dim_ += c;
        for (double v : y) mean_ += v;
        mean_ /= double(y.size());
        std::vector<double> a(dim_ * dim_, 0.0), b(dim_, 0.0);
        for (size_t n = 0; n < x.size(); ++n) {
            const std::vector<size_t> f = features(x[n]);
            for (size_t i : f) {
                b[i] += y[n] - mean_;
                for (size_t j : f) a[i * dim_ + j] += 1.0;
            }
        }
        for (size_t i = 0; i < dim_; ++i) a[i * dim_ + i] += kRidge;
        // a = L L^T in place (lower triangle), then two triangular solves.
        for (size_t j = 0; j < dim_; ++j) {
            for (size_t k = 0; k < j; ++k) a[j * dim_ + j] -= a[j * dim_ + k] * a[j * dim_ + k];
            a[j * dim_ + j] = std::sqrt(a[j * dim_ + j]);
            for (size_t i = j + 1; i < dim_; ++i) {
                for (size_t k = 0; k < j; ++k) a[i * dim_ + j] -= a[i * dim_ + k] * a[j * dim_ + k];
                a[i * dim_ + j] /= a[j * dim_ + j];
            }
        }
        for (size_t i = 0; i < dim_; ++i) {
            for (size_t k = 0; k < i; ++k) b[i] -= a[i * dim_ + k] * b[k];
            b[i] /= a[i * dim_ + i];
        }
        for (size_t i = dim_; i-- > 0;) {
            for (size_t k = i + 1; k < dim_; ++k) b[i] -= a[k * dim_ + i] * b[k];
            b[i] /= a[i * dim_ + i];
        }
        beta_ = std::move(b);
    }
    double predict(const ConfigKey& x) const {
        double v = mean_;
        for (size_t i : features(x)) v += beta_[i];
        return v;
    }

private:
    static constexpr double kRidge = 0.3;
    std::vector<size_t> features(const ConfigKey& x) const {
        std::vector<size_t> f(x.size());
        for (size_t p = 0; p < x.size(); ++p) f[p] = offset_[p] + x[p];
        return f;
    }
    std::vector<size_t> offset_;
    size_t dim_ = 0;
    double mean_ = 0;
    std::vector<double> beta_;
};

} // namespace

void ForestSearch::on_tell(const rt::Config& c, std::optional<double> seconds) {
    data_.push_back(
        {key(c), seconds ? std::optional(std::log(std::max(*seconds, 1e-30))) : std::nullopt, c});
}

std::optional<rt::Config> ForestSearch::propose() {
    if (!started_) {
        started_ = true;
        const rt::Config s = start_config();
        if (!seen(s) && valid(s)) return s;
    }
    if (data_.size() < kInitial || std::uniform_real_distribution<double>(0, 1)(rng_) < kExplore)
        return random_unseen();

    // Training set: failures count as twice as slow as the slowest success.
    std::vector<ConfigKey> x;
    std::vector<double> y;
    double worst = -std::numeric_limits<double>::infinity();
    for (const Sample& s : data_)
        if (s.log_seconds) worst = std::max(worst, *s.log_seconds);
    if (!std::isfinite(worst)) return random_unseen();
    for (const Sample& s : data_) {
        x.push_back(s.x);
        y.push_back(s.log_seconds.value_or(worst + std::log(2.0)));
    }
    // The forest learns what the additive model leaves (interactions).
    std::vector<size_t> counts;
    for (const auto& p : space_->params()) counts.push_back(p.values.size());
    const Additive additive(x, y, counts);
    const std::vector<double> measured = y;
    for (size_t n = 0; n < x.size(); ++n) y[n] -= additive.predict(x[n]);
    std::vector<Tree> forest;
    for (size_t t = 0; t < kTrees; ++t) {
        std::vector<size_t> rows(x.size());
        std::uniform_int_distribution<size_t> pick(0, x.size() - 1);
        for (size_t& r : rows) r = pick(rng_);
        Fitter f{x, y, rng_, {}};
        f.grow(rows);
        forest.push_back(std::move(f.tree));
    }

    // The acquisition: predicted log time, less the forest's spread (optimism).
    const auto score = [&](const rt::Config& c) {
        const ConfigKey k = key(c);
        double sum = 0, sum2 = 0;
        for (const Tree& t : forest) {
            const double p = t.predict(k);
            sum += p, sum2 += p * p;
        }
        const double m = sum / double(kTrees);
        const double spread = std::sqrt(std::max(0.0, sum2 / double(kTrees) - m * m));
        return additive.predict(k) + m - kOptimism * spread;
    };
    double best_score = std::numeric_limits<double>::infinity();
    std::optional<rt::Config> best;
    const auto consider = [&](const rt::Config& c, double sc) {
        if (sc < best_score && !seen(c)) best_score = sc, best = c;
    };
    for (size_t n = 0; n < kRandomCandidates; ++n)
        if (auto c = random_unseen()) consider(*c, score(*c));
    // From each of the best measured configurations, a descent on the acquisition over
    // neighbours (seen ones may be passed through, only unseen ones are proposed).
    std::vector<size_t> order(data_.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return measured[a] < measured[b]; });
    for (size_t n = 0; n < std::min(kParents, order.size()); ++n) {
        rt::Config at = data_[order[n]].config;
        double at_score = score(at);
        for (int step = 0; step < kDescentSteps; ++step) {
            std::optional<rt::Config> next;
            double next_score = at_score;
            for (const rt::Config& c : space_->neighbours(at, problem_, device_)) {
                const double sc = score(c);
                consider(c, sc);
                if (sc < next_score) next_score = sc, next = c;
            }
            if (!next) break;
            at = std::move(*next), at_score = next_score;
        }
    }
    return best;
}

} // namespace squall::tuner
