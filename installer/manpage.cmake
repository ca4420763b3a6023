# Writes a man page (section 1) from a program's own --help, so the page always says what the
# installed program accepts. Run at build time:
#   cmake -DPROGRAM=path -DNAME=tessera-cli -DSUMMARY="..." -DVERSION=0.1.0 -DOUTPUT=tessera-cli.1.gz
#         [-DSECTIONS="title|arg arg,title|arg"] [-DSUBCOMMANDS_OF="arg arg"] [-DSUBCOMMANDS_TITLE=...]
#         -P manpage.cmake
# SECTIONS are further help texts: "title|arguments before --help" (e.g. "match|match").
# SUBCOMMANDS_OF: the arguments whose (CLI11) help lists "Subcommands:" (empty: the main help);
# each of them gets a section of its own help, so a new subcommand is in the page without being
# named here.
# QT_QPA_PLATFORM=offscreen lets the terminal print its help without a display.
cmake_minimum_required(VERSION 3.25)

function(help_of args out)
  separate_arguments(list UNIX_COMMAND "${args}")
  # HOME=~ and no XDG_CONFIG_HOME: a default path shows as ~/.config/..., not the builder's home.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=XDG_CONFIG_HOME QT_QPA_PLATFORM=offscreen HOME=~
                          ${PROGRAM} ${list} --help
                  INPUT_FILE /dev/null OUTPUT_VARIABLE text ERROR_VARIABLE ignored RESULT_VARIABLE code)
  if(NOT code EQUAL 0 OR text STREQUAL "")
    message(FATAL_ERROR "${PROGRAM} ${args} --help failed (${code})")
  endif()
  string(REPLACE "${PROGRAM}" "${NAME}" text "${text}")  # Qt prints the path it was started by
  # roff: a backslash is \e; a line starting with . or ' would be a request.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

string(REPLACE "," ";" SECTIONS "${SECTIONS}")
string(TOUPPER "${NAME}" upper)
help_of("" main)
set(page ".TH ${upper} 1 \"\" \"tessera ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\n${NAME} \\- ${SUMMARY}\n.SH SYNOPSIS AND OPTIONS\n.nf\n${main}.fi\n")
if(DEFINED SUBCOMMANDS_OF)
  if(SUBCOMMANDS_OF STREQUAL "")
    set(listing "${main}")
  else()
    help_of("${SUBCOMMANDS_OF}" listing)
    string(APPEND page ".SH \"${SUBCOMMANDS_TITLE}\"\n.nf\n${listing}.fi\n")
  endif()
  string(REGEX MATCH "Subcommands:\n(.*)" tail "${listing}")
  string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" names "\n${CMAKE_MATCH_1}")
  foreach(name IN LISTS names)
    string(STRIP "${name}" name)
    string(STRIP "${SUBCOMMANDS_OF} ${name}" args)
    list(APPEND SECTIONS "${name}|${args}")
  endforeach()
endif()
if(SECTIONS)
  string(APPEND page ".SH COMMANDS\n")
  foreach(section IN LISTS SECTIONS)
    string(REPLACE "|" ";" parts "${section}")
    list(GET parts 0 title)
    list(GET parts 1 args)
    help_of("${args}" text)
    string(APPEND page ".SS \"${NAME} ${title}\"\n.nf\n${text}.fi\n")
  endforeach()
endif()
string(APPEND page ".SH FILES\n/usr/share/doc/tessera/ (the user documentation: docs/*.md and the README)\n")
string(APPEND page ".SH SEE ALSO\ntessera(1), tessera-cli(1), tessera-exchange(1), tessera-backtest(1)\n")

get_filename_component(dir "${OUTPUT}" DIRECTORY)
get_filename_component(base "${OUTPUT}" NAME_WLE)
file(WRITE "${dir}/${base}" "${page}")
file(ARCHIVE_CREATE OUTPUT "${OUTPUT}" PATHS "${dir}/${base}" FORMAT raw COMPRESSION GZip)
