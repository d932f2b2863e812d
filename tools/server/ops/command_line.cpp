#include "ops/command_line.hpp"

#include <cstdlib>
#include <iostream>

namespace gmserver {

const CLI::Validator &non_negative_number() {
    static const CLI::Validator validator(
        [](std::string &value) -> std::string {
            char *end = nullptr;
            const double d = std::strtod(value.c_str(), &end);
            if (value.empty() || !end || *end != '\0') return "not a number: " + value;
            if (!(d >= 0)) return value + " is out of range: it must be 0 or more";
            return std::string();
        },
        "");
    return validator;
}

int parse_command_line(CLI::App &app, int argc, char **argv, const std::string &program, const std::string &usage) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ValidationError &e) {
        std::cerr << program << ": " << e.what() << "\n";
        return 2;
    } catch (const CLI::ConversionError &e) {
        std::cerr << program << ": " << e.what() << "\n";
        return 2;
    } catch (const CLI::ParseError &e) {
        std::cerr << program << ": " << e.what() << "\n" << usage;
        return 2;
    }
    return -1;
}

}  // namespace gmserver
