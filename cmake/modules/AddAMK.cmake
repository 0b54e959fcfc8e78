#===- AddAMK.cmake - Helpers for AMK libraries ------------------------------===#
#
# Every AMK library is built with add_mlir_library and recorded for export, so
# that other projects can `find_package(AMK)` and link the dialect and passes
# (the scheme CIRCT uses in cmake/modules/AddCIRCT.cmake).
#
#===------------------------------------------------------------------------===#

function(add_amk_library_install name)
  install(TARGETS ${name} EXPORT AMKTargets
    LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
    ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX}
    RUNTIME DESTINATION bin)
  set_property(GLOBAL APPEND PROPERTY AMK_EXPORTS ${name})
endfunction()

# add_amk_library(name sources... [LINK_LIBS ...] [DEPENDS ...])
function(add_amk_library name)
  add_mlir_library(${ARGV} DISABLE_INSTALL)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${AMK_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${AMK_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  add_amk_library_install(${name})
endfunction()

function(add_amk_dialect_library name)
  set_property(GLOBAL APPEND PROPERTY AMK_DIALECT_LIBS ${name})
  add_amk_library(${ARGV} DEPENDS mlir-headers)
endfunction()
