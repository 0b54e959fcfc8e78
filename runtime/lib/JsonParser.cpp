//===- JsonParser.cpp - A strict JSON parser ------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A recursive-descent parser over the RFC 8259 grammar. It needs only the C++
// standard library, so it builds on the GPU machine, which has no LLVM.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace amk::runtime {

/// Parses one document. Tracks the line and column as it goes so that every
/// error and every value carries a position.
class JsonParser {
public:
  explicit JsonParser(std::string_view text) : text(text) {}

  Status parseDocument(JsonValue &out) {
    skipWhitespace();
    if (atEnd())
      return fail("expected a JSON value, found the end of the input");
    if (Status s = parseValue(out, 0); !s.ok())
      return s;
    skipWhitespace();
    if (!atEnd())
      return fail("unexpected " + describeHere() + " after the JSON value");
    return Status::success();
  }

private:
  static constexpr int kMaxDepth = 256;

  std::string_view text;
  size_t pos = 0;
  int line = 1;
  size_t lineStart = 0;

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  int column() const { return static_cast<int>(pos - lineStart) + 1; }

  void advance() {
    if (text[pos] == '\n') {
      ++line;
      lineStart = pos + 1;
    }
    ++pos;
  }

  Status fail(const std::string &message) const {
    return Status::error(std::to_string(line) + ":" + std::to_string(column()) +
                         ": " + message);
  }

  /// Names the character at the cursor for an error message.
  std::string describeHere() const {
    if (atEnd())
      return "end of input";
    unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c < 0x20 || c >= 0x7f) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "byte 0x%02x", c);
      return buf;
    }
    return std::string("'") + static_cast<char>(c) + "'";
  }

  void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' ||
                        peek() == '\r'))
      advance();
  }

  /// Consumes `word` (a literal such as "true") or fails.
  bool consumeWord(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    for (size_t i = 0; i < word.size(); ++i)
      advance();
    return true;
  }

  Status parseValue(JsonValue &out, int depth) {
    out = JsonValue();
    out.sourceLine = line;
    out.sourceColumn = column();
    char c = peek();
    switch (c) {
    case '{':
      return parseObject(out, depth);
    case '[':
      return parseArray(out, depth);
    case '"':
      out.valueKind = JsonValue::Kind::String;
      return parseString(out.stringValue);
    case 't':
    case 'f':
    case 'n':
      return parseLiteral(out);
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(out);
      return fail("expected a JSON value, found " + describeHere());
    }
  }

  Status parseLiteral(JsonValue &out) {
    if (consumeWord("true")) {
      out.valueKind = JsonValue::Kind::Bool;
      out.boolValue = true;
    } else if (consumeWord("false")) {
      out.valueKind = JsonValue::Kind::Bool;
    } else if (!consumeWord("null")) {
      return fail("expected a JSON value, found " + describeHere());
    }
    return Status::success();
  }

  Status parseObject(JsonValue &out, int depth) {
    if (depth >= kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    out.valueKind = JsonValue::Kind::Object;
    advance(); // '{'
    skipWhitespace();
    if (peek() == '}') {
      advance();
      return Status::success();
    }
    while (true) {
      if (peek() != '"')
        return fail("expected a string key, found " + describeHere());
      int keyLine = line, keyColumn = column();
      std::string key;
      if (Status s = parseString(key); !s.ok())
        return s;
      for (const JsonValue::Member &member : out.objectValue)
        if (member.first == key)
          return Status::error(std::to_string(keyLine) + ":" +
                               std::to_string(keyColumn) + ": duplicate key '" +
                               key + "'");
      skipWhitespace();
      if (peek() != ':')
        return fail("expected ':' after an object key, found " +
                    describeHere());
      advance();
      skipWhitespace();
      out.objectValue.emplace_back(std::move(key), JsonValue());
      if (Status s = parseValue(out.objectValue.back().second, depth + 1);
          !s.ok())
        return s;
      skipWhitespace();
      if (peek() == '}') {
        advance();
        return Status::success();
      }
      if (peek() != ',')
        return fail("expected ',' or '}' after an object member, found " +
                    describeHere());
      advance();
      skipWhitespace();
    }
  }

  Status parseArray(JsonValue &out, int depth) {
    if (depth >= kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    out.valueKind = JsonValue::Kind::Array;
    advance(); // '['
    skipWhitespace();
    if (peek() == ']') {
      advance();
      return Status::success();
    }
    while (true) {
      out.arrayValue.emplace_back();
      if (Status s = parseValue(out.arrayValue.back(), depth + 1); !s.ok())
        return s;
      skipWhitespace();
      if (peek() == ']') {
        advance();
        return Status::success();
      }
      if (peek() != ',')
        return fail("expected ',' or ']' after an array element, found " +
                    describeHere());
      advance();
      skipWhitespace();
    }
  }

  /// Reads four hex digits of a \u escape.
  Status parseHex4(unsigned &code) {
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      unsigned digit;
      if (c >= '0' && c <= '9')
        digit = c - '0';
      else if (c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        return fail("expected 4 hex digits after \\u, found " + describeHere());
      code = code * 16 + digit;
      advance();
    }
    return Status::success();
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  /// Decodes a \u escape (the cursor is after "\u"), joining a surrogate
  /// pair into one code point.
  Status parseUnicodeEscape(std::string &out) {
    unsigned code;
    if (Status s = parseHex4(code); !s.ok())
      return s;
    if (code >= 0xdc00 && code <= 0xdfff)
      return fail("unpaired low surrogate in \\u escape");
    if (code >= 0xd800 && code <= 0xdbff) {
      if (!consumeWord("\\u"))
        return fail("high surrogate in \\u escape not followed by a low one");
      unsigned low;
      if (Status s = parseHex4(low); !s.ok())
        return s;
      if (low < 0xdc00 || low > 0xdfff)
        return fail("high surrogate in \\u escape not followed by a low one");
      code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
    }
    appendUtf8(out, code);
    return Status::success();
  }

  Status parseEscape(std::string &out) {
    advance(); // '\'
    char c = peek();
    const char *simple = "\"\\/bfnrt";
    const char *meaning = "\"\\/\b\f\n\r\t";
    if (const char *p = c ? std::strchr(simple, c) : nullptr) {
      out += meaning[p - simple];
      advance();
      return Status::success();
    }
    if (c == 'u') {
      advance();
      return parseUnicodeEscape(out);
    }
    if (atEnd())
      return fail("unterminated escape at the end of the input");
    return fail(std::string("invalid escape '\\") + c + "' in a string");
  }

  Status parseString(std::string &out) {
    int startLine = line, startColumn = column();
    advance(); // opening quote
    while (true) {
      if (atEnd())
        return Status::error(std::to_string(startLine) + ":" +
                             std::to_string(startColumn) +
                             ": unterminated string");
      unsigned char c = static_cast<unsigned char>(peek());
      if (c == '"') {
        advance();
        return Status::success();
      }
      if (c < 0x20)
        return fail("unescaped control character (" + describeHere() +
                    ") in a string");
      if (c == '\\') {
        if (Status s = parseEscape(out); !s.ok())
          return s;
        continue;
      }
      out += static_cast<char>(c);
      advance();
    }
  }

  /// Consumes a run of decimal digits; returns how many.
  size_t consumeDigits() {
    size_t count = 0;
    while (peek() >= '0' && peek() <= '9') {
      advance();
      ++count;
    }
    return count;
  }

  Status parseNumber(JsonValue &out) {
    size_t start = pos;
    bool isInt = true;
    if (peek() == '-')
      advance();
    if (peek() == '0') {
      advance();
      if (peek() >= '0' && peek() <= '9')
        return fail("leading zeros are not allowed in numbers");
    } else if (consumeDigits() == 0) {
      return fail("expected a digit, found " + describeHere());
    }
    if (peek() == '.') {
      isInt = false;
      advance();
      if (consumeDigits() == 0)
        return fail("expected a digit after '.', found " + describeHere());
    }
    if (peek() == 'e' || peek() == 'E') {
      isInt = false;
      advance();
      if (peek() == '+' || peek() == '-')
        advance();
      if (consumeDigits() == 0)
        return fail("expected a digit in the exponent, found " +
                    describeHere());
    }
    std::string literal(text.substr(start, pos - start));
    out.valueKind = JsonValue::Kind::Number;
    errno = 0;
    out.doubleValue = std::strtod(literal.c_str(), nullptr);
    if (!std::isfinite(out.doubleValue))
      return Status::error(std::to_string(out.sourceLine) + ":" +
                           std::to_string(out.sourceColumn) + ": number " +
                           literal + " is out of range");
    if (isInt) {
      errno = 0;
      long long value = std::strtoll(literal.c_str(), nullptr, 10);
      // Integer literals beyond int64_t stay plain doubles.
      out.hasInt = errno != ERANGE;
      out.intValue = value;
    }
    return Status::success();
  }
};

Status parseJson(std::string_view text, JsonValue &out) {
  JsonParser parser(text);
  return parser.parseDocument(out);
}

} // namespace amk::runtime
