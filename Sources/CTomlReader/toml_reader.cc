// SPDX-License-Identifier: Apache-2.0
// toml++ behind a C face: parse, then flatten the tree into one buffer
// (toml_reader.h says how), so that no C++ type crosses into Swift.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "toml_reader.h"

namespace {

struct Writer {
    std::string out;

    void byte(char tag) { out.push_back(tag); }
    template <typename T> void raw(T value) { out.append(reinterpret_cast<const char *>(&value), sizeof value); }
    void text(char tag, std::string_view bytes) {
        byte(tag);
        raw(static_cast<uint32_t>(bytes.size()));
        out.append(bytes.data(), bytes.size());
    }
    template <typename T> void printed(const T &value) {
        std::ostringstream stream;
        stream << value;
        text('d', stream.str());
    }

    void node(const toml::node &value) {
        switch (value.type()) {
        case toml::node_type::table: {
            const toml::table &table = *value.as_table();
            byte('T');
            raw(static_cast<uint32_t>(table.size()));
            for (auto &&[key, member] : table) {
                raw(static_cast<uint32_t>(key.str().size()));
                out.append(key.str());
                node(member);
            }
            break;
        }
        case toml::node_type::array: {
            const toml::array &array = *value.as_array();
            byte('A');
            raw(static_cast<uint32_t>(array.size()));
            for (const toml::node &item : array) node(item);
            break;
        }
        case toml::node_type::string: text('S', value.as_string()->get()); break;
        case toml::node_type::integer:
            byte('I');
            raw(static_cast<int64_t>(value.as_integer()->get()));
            break;
        case toml::node_type::floating_point:
            byte('D');
            raw(static_cast<double>(value.as_floating_point()->get()));
            break;
        case toml::node_type::boolean:
            byte('B');
            raw(static_cast<uint8_t>(value.as_boolean()->get() ? 1 : 0));
            break;
        case toml::node_type::date: printed(value.as_date()->get()); break;
        case toml::node_type::time: printed(value.as_time()->get()); break;
        case toml::node_type::date_time: printed(value.as_date_time()->get()); break;
        case toml::node_type::none: text('S', ""); break;
        }
    }
};

char *copy(std::string_view text) {
    char *made = static_cast<char *>(std::malloc(text.size() + 1));
    if (made) {
        std::memcpy(made, text.data(), text.size());
        made[text.size()] = 0;
    }
    return made;
}

} // namespace

extern "C" void toastd_toml_parse(const char *text, size_t length, toastd_toml *result) {
    *result = toastd_toml{};
    toml::parse_result parsed = toml::parse(std::string_view(text, length));
    if (!parsed) {
        const toml::parse_error &error = parsed.error();
        result->error = copy(error.description());
        result->line = static_cast<uint32_t>(error.source().begin.line);
        result->column = static_cast<uint32_t>(error.source().begin.column);
        return;
    }
    Writer writer;
    writer.node(parsed.table());
    result->tree = reinterpret_cast<unsigned char *>(std::malloc(writer.out.size() ? writer.out.size() : 1));
    if (!result->tree) {
        result->error = copy("out of memory");
        result->line = result->column = 1;
        return;
    }
    std::memcpy(result->tree, writer.out.data(), writer.out.size());
    result->tree_length = writer.out.size();
}

extern "C" void toastd_toml_free(toastd_toml *result) {
    std::free(result->tree);
    std::free(result->error);
    *result = toastd_toml{};
}
