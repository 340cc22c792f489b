#include "support/conv_programs.hpp"

namespace ss::test {

const char* const kConvPrograms =
    "fn layer(x: [b 6 5 3], k: [3 3 3 4]) -> [b 6 5 4] = conv(x, k, over=[1 2], padding=1)\n"
    "fn strided(x: [b 9 11 2], k: [3 3 2 5], r: [b 5 6 5]) -> [] = "
    "sum(conv(x, k, over=[1 2], stride=2, padding=1, out=[5 6]) * r)\n"
    "fn mixed(x: [b 12 9 3], k: [3 2 3 4], r: [b 5 5 4]) -> [] = "
    "sum(conv(x, k, over=[1 2], stride=[2 2], padding=[1 1], dilation=[2 1], out=[5 5]) * r)\n"
    "fn same_even(x: [b 7 8 2], k: [2 4 2 3], r: [b 7 8 3]) -> [] = "
    "sum(conv(x, k, over=[1 2], padding=same) * r)\n"
    "fn two(x: [b 6 5 3], k1: [3 3 3 4], k2: [3 3 4 2], r: [b 6 5 2]) -> [] = "
    "sum(conv(relu(conv(x, k1, over=[1 2], padding=1)), k2, over=[1 2], padding=1) * r)\n";

std::int64_t cudnn_passes(const std::string& function, bool gradients) {
  if (function == "same_even") return 0;
  if (function == "two") return gradients ? 6 : 2;
  return gradients ? 3 : 1;
}

}  // namespace ss::test
