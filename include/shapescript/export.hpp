// SS_API marks what libshapescript.so exports: the public API and nothing else.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define SS_API __attribute__((visibility("default")))
#else
#define SS_API
#endif
