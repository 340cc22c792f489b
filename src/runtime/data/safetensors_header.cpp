#include "runtime/data/safetensors_header.hpp"

#include <limits>
#include <set>

namespace ss::runtime {
namespace {

constexpr int kMaxDepth = 64;  // deeper nesting is no header, and no stack overflow

// A JSON value as far as a header needs it.
struct Json {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  std::string text;         // a string's value, a number's digits
  bool integer = false;     // a number without sign, fraction or exponent
  std::vector<Json> items;  // an array's
  // An object's members, in order: names[k] names values[k]. (Two vectors,
  // not one of pairs: a pair of an incomplete type isn't allowed.)
  std::vector<std::string> names;
  std::vector<Json> values;
};

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}

  bool document(Json* out, std::string* why) {
    if (!value(out, 0) || (space(), at_ != t_.size())) {
      *why = "its header isn't a JSON object (" +
             (error_.empty() ? "text after the JSON value" : error_) + ")";
      return false;
    }
    return true;
  }

 private:
  std::string_view t_;
  std::size_t at_ = 0;
  std::string error_;

  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at byte " + std::to_string(at_);
    return false;
  }
  void space() {
    while (at_ < t_.size() &&
           (t_[at_] == ' ' || t_[at_] == '\t' || t_[at_] == '\n' || t_[at_] == '\r'))
      ++at_;
  }
  bool literal(std::string_view word) {
    if (t_.substr(at_, word.size()) != word) return fail("not JSON");
    at_ += word.size();
    return true;
  }

  bool value(Json* out, int depth) {
    if (depth > kMaxDepth) return fail("nested too deep");
    space();
    if (at_ == t_.size()) return fail("the header ends early");
    switch (t_[at_]) {
      case '{':
        return object(out, depth);
      case '[':
        return array(out, depth);
      case '"':
        out->kind = Json::Kind::string;
        return string(&out->text);
      case 't':
        out->kind = Json::Kind::boolean;
        return literal("true");
      case 'f':
        out->kind = Json::Kind::boolean;
        return literal("false");
      case 'n':
        out->kind = Json::Kind::null;
        return literal("null");
      default:
        return number(out);
    }
  }

  bool object(Json* out, int depth) {
    out->kind = Json::Kind::object;
    ++at_;
    space();
    if (at_ < t_.size() && t_[at_] == '}') return ++at_, true;
    for (;;) {
      space();
      std::string key;
      if (at_ >= t_.size() || t_[at_] != '"' || !string(&key))
        return fail("an object's key isn't a string");
      space();
      if (at_ >= t_.size() || t_[at_] != ':') return fail("a key without ':'");
      ++at_;
      out->names.push_back(std::move(key));
      out->values.emplace_back();
      if (!value(&out->values.back(), depth + 1)) return false;
      space();
      if (at_ < t_.size() && t_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < t_.size() && t_[at_] == '}') return ++at_, true;
      return fail("an object without '}'");
    }
  }

  bool array(Json* out, int depth) {
    out->kind = Json::Kind::array;
    ++at_;
    space();
    if (at_ < t_.size() && t_[at_] == ']') return ++at_, true;
    for (;;) {
      out->items.emplace_back();
      if (!value(&out->items.back(), depth + 1)) return false;
      space();
      if (at_ < t_.size() && t_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < t_.size() && t_[at_] == ']') return ++at_, true;
      return fail("an array without ']'");
    }
  }

  bool number(Json* out) {
    out->kind = Json::Kind::number;
    const std::size_t start = at_;
    bool plain = true;
    if (at_ < t_.size() && t_[at_] == '-') ++at_, plain = false;
    const std::size_t digits = at_;
    while (at_ < t_.size() && t_[at_] >= '0' && t_[at_] <= '9') ++at_;
    if (at_ == digits) return fail("not JSON");
    if (t_[digits] == '0' && at_ - digits > 1) return fail("a number with a leading zero");
    if (at_ < t_.size() && t_[at_] == '.') {
      plain = false;
      const std::size_t f = ++at_;
      while (at_ < t_.size() && t_[at_] >= '0' && t_[at_] <= '9') ++at_;
      if (at_ == f) return fail("a number without digits after '.'");
    }
    if (at_ < t_.size() && (t_[at_] == 'e' || t_[at_] == 'E')) {
      plain = false;
      ++at_;
      if (at_ < t_.size() && (t_[at_] == '+' || t_[at_] == '-')) ++at_;
      const std::size_t e = at_;
      while (at_ < t_.size() && t_[at_] >= '0' && t_[at_] <= '9') ++at_;
      if (at_ == e) return fail("a number without an exponent");
    }
    out->integer = plain;
    out->text = std::string(t_.substr(start, at_ - start));
    return true;
  }

  static void utf8(std::string* out, std::uint32_t c) {
    if (c < 0x80) {
      *out += static_cast<char>(c);
    } else if (c < 0x800) {
      *out += static_cast<char>(0xC0 | (c >> 6));
      *out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      *out += static_cast<char>(0xE0 | (c >> 12));
      *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (c >> 18));
      *out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  bool hex4(std::uint32_t* c) {
    if (at_ + 4 > t_.size()) return fail("a \\u escape cut short");
    *c = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = t_[at_++];
      *c <<= 4;
      if (h >= '0' && h <= '9')
        *c |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f')
        *c |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        *c |= static_cast<std::uint32_t>(h - 'A' + 10);
      else
        return fail("a bad \\u escape");
    }
    return true;
  }

  bool string(std::string* out) {
    ++at_;  // the opening quote
    for (;;) {
      if (at_ >= t_.size()) return fail("a string without its closing quote");
      const char c = t_[at_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("a control character in a string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (at_ >= t_.size()) return fail("a string without its closing quote");
      const char e = t_[at_++];
      switch (e) {
        case '"':
          *out += '"';
          break;
        case '\\':
          *out += '\\';
          break;
        case '/':
          *out += '/';
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'n':
          *out += '\n';
          break;
        case 'r':
          *out += '\r';
          break;
        case 't':
          *out += '\t';
          break;
        case 'u': {
          std::uint32_t c1 = 0;
          if (!hex4(&c1)) return false;
          if (c1 >= 0xD800 && c1 <= 0xDBFF) {  // a surrogate pair's first half
            std::uint32_t c2 = 0;
            if (t_.substr(at_, 2) != "\\u") return fail("a lone surrogate");
            at_ += 2;
            if (!hex4(&c2)) return false;
            if (c2 < 0xDC00 || c2 > 0xDFFF) return fail("a lone surrogate");
            c1 = 0x10000 + ((c1 - 0xD800) << 10) + (c2 - 0xDC00);
          } else if (c1 >= 0xDC00 && c1 <= 0xDFFF) {
            return fail("a lone surrogate");
          }
          utf8(out, c1);
          break;
        }
        default:
          return fail("a bad escape in a string");
      }
    }
  }
};

// An unsigned integer that fits in an int64.
bool unsigned_integer(const Json& j, std::uint64_t* out) {
  if (j.kind != Json::Kind::number || !j.integer || j.text.size() > 19) return false;
  std::uint64_t v = 0;
  for (const char c : j.text) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  *out = v;
  return true;
}

const Json* member(const Json& object, std::string_view key) {
  for (std::size_t k = 0; k < object.names.size(); ++k)
    if (object.names[k] == key) return &object.values[k];
  return nullptr;
}

}  // namespace

bool parse_safetensors_header(std::string_view text, std::vector<SafetensorsEntry>* entries,
                              std::string* why) {
  Json root;
  if (!Parser(text).document(&root, why)) return false;
  if (root.kind != Json::Kind::object) {
    *why = "its header isn't a JSON object";
    return false;
  }
  std::set<std::string_view> seen;
  for (std::size_t k = 0; k < root.names.size(); ++k) {
    const std::string& name = root.names[k];
    const Json& entry = root.values[k];
    if (name == "__metadata__") continue;
    if (!seen.insert(name).second) {
      *why = "it names `" + name + "` twice";
      return false;
    }
    const Json* dtype = entry.kind == Json::Kind::object ? member(entry, "dtype") : nullptr;
    const Json* shape = entry.kind == Json::Kind::object ? member(entry, "shape") : nullptr;
    const Json* offsets =
        entry.kind == Json::Kind::object ? member(entry, "data_offsets") : nullptr;
    if (!dtype || !shape || !offsets || dtype->kind != Json::Kind::string ||
        shape->kind != Json::Kind::array || offsets->kind != Json::Kind::array ||
        offsets->items.size() != 2) {
      *why = "the entry for `" + name + "` lacks dtype, shape or data_offsets";
      return false;
    }
    SafetensorsEntry e;
    e.name = name;
    e.dtype = dtype->text;
    for (const auto& d : shape->items) {
      std::uint64_t size = 0;
      if (!unsigned_integer(d, &size)) {
        *why = "`" + name + "` has a bad shape";
        return false;
      }
      e.shape.push_back(static_cast<std::int64_t>(size));
    }
    if (!unsigned_integer(offsets->items[0], &e.begin) ||
        !unsigned_integer(offsets->items[1], &e.end)) {
      *why = "`" + name + "` has bad data_offsets";
      return false;
    }
    entries->push_back(std::move(e));
  }
  return true;
}

}  // namespace ss::runtime
