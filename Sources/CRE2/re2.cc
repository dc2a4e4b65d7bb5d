#include "CRE2.h"

#include <re2/re2.h>
#include <cstring>
#include <string>

struct toastd_re2 {
    re2::RE2 regex;
    toastd_re2(re2::StringPiece pattern, const re2::RE2::Options &options) : regex(pattern, options) {}
};

toastd_re2 *toastd_re2_new(const char *pattern, size_t length, long max_memory, char *error, size_t error_size) {
    re2::RE2::Options options;
    options.set_posix_syntax(true);
    options.set_one_line(true);      // ^ and $ at the text's ends only, as regexec without REG_NEWLINE
    options.set_dot_nl(true);        // . matches a newline too
    options.set_perl_classes(true);  // \d \w \s, as BoundedRegex
    options.set_log_errors(false);
    options.set_max_mem(max_memory);
    auto *re = new toastd_re2(re2::StringPiece(pattern, length), options);
    if (!re->regex.ok()) {
        if (error && error_size > 0) {
            std::strncpy(error, re->regex.error().c_str(), error_size - 1);
            error[error_size - 1] = 0;
        }
        delete re;
        return nullptr;
    }
    return re;
}

int toastd_re2_search(const toastd_re2 *re, const char *text, size_t length) {
    return re2::RE2::PartialMatch(re2::StringPiece(text, length), re->regex) ? 1 : 0;
}

int toastd_re2_program_size(const toastd_re2 *re) { return re->regex.ProgramSize(); }

void toastd_re2_free(toastd_re2 *re) { delete re; }
