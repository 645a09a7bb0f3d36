# squall_embed_sources(<target> NAME <ident> [BASE_DIR <dir>] FILES <file>...)
#
# Embeds files (e.g. kernels/*.cuh) into <target> as a table of {relative path,
# contents}. It generates <ident>.cpp and embedded/<ident>.h in the build tree; the
# header declares
#     squall::rt::SourcesPtr squall::embedded::<ident>();
# Paths are relative to BASE_DIR (default: the repository root), e.g.
# "kernels/advec.cuh". The table is regenerated when a file changes.
set(SQUALL_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_generate.cmake CACHE INTERNAL "")

function(squall_embed_sources target)
  cmake_parse_arguments(ARG "" "NAME;BASE_DIR" "FILES" ${ARGN})
  if(NOT ARG_NAME)
    message(FATAL_ERROR "squall_embed_sources: NAME is required")
  endif()
  if(NOT ARG_BASE_DIR)
    set(ARG_BASE_DIR ${squall_SOURCE_DIR}) # the repository root
  endif()
  set(abs_files "")
  set(rel_files "")
  foreach(f IN LISTS ARG_FILES)
    get_filename_component(abs ${f} ABSOLUTE)
    file(RELATIVE_PATH rel ${ARG_BASE_DIR} ${abs})
    list(APPEND abs_files ${abs})
    list(APPEND rel_files ${rel})
  endforeach()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/squall_embed_${ARG_NAME})
  set(out_cpp ${out_dir}/${ARG_NAME}.cpp)
  set(out_h ${out_dir}/embedded/${ARG_NAME}.h)
  # Lists are passed through a file: command lines would mangle ';'.
  string(REPLACE ";" "\n" abs_lines "${abs_files}")
  string(REPLACE ";" "\n" rel_lines "${rel_files}")
  file(WRITE ${out_dir}/files.txt "${abs_lines}\n")
  file(WRITE ${out_dir}/names.txt "${rel_lines}\n")
  add_custom_command(
    OUTPUT ${out_cpp} ${out_h}
    COMMAND ${CMAKE_COMMAND} -DNAME=${ARG_NAME} -DOUT_DIR=${out_dir} -P ${SQUALL_EMBED_SCRIPT}
    DEPENDS ${abs_files} ${SQUALL_EMBED_SCRIPT} ${out_dir}/files.txt ${out_dir}/names.txt
    COMMENT "Embedding kernel sources ${ARG_NAME}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out_cpp} ${out_h})
  target_include_directories(${target} PUBLIC ${out_dir})
endfunction()
