#include "tokenizer/token_attr.h"

namespace zen::tokenizer {

uint32_t attr_from_token_type(int32_t type) {
  switch (static_cast<TokenType>(type)) {
    case TokenType::kNormal:
      return kAttrNormal;
    case TokenType::kUnknown:
      return kAttrUnknown;
    case TokenType::kControl:
      return kAttrControl;
    case TokenType::kUserDefined:
      return kAttrUserDefined;
    case TokenType::kUnused:
      return kAttrUnused;
    case TokenType::kByte:
      return kAttrByte;
    case TokenType::kUndefined:
      return kAttrUndefined;
  }
  return kAttrUndefined;
}

}  // namespace zen::tokenizer
