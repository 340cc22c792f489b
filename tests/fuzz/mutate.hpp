// A seeded random edit of an input (bytes flipped, inserted, deleted or
// duplicated): the ordinary suite's stand-in for libFuzzer's mutations when
// it replays a fuzz corpus.
#pragma once

#include <random>
#include <string>

namespace ss::test {

inline std::string mutate(std::string s, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0:  // flip a byte
        if (at < s.size()) s[at] = static_cast<char>(byte(rng));
        break;
      case 1:  // insert a byte
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(byte(rng)));
        break;
      case 2:  // delete a run
        if (at < s.size()) s.erase(at, 1 + rng() % 16);
        break;
      default:  // duplicate a run
        if (at < s.size()) s.insert(at, s.substr(at, 1 + rng() % 64));
        break;
    }
  }
  return s;
}

}  // namespace ss::test
