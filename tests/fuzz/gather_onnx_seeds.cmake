# Copies the ONNX models the fuzz_onnx target starts from into OUT, one file
# each: the suite's models (SOURCE/tests/onnx/models) and ONNX's own node
# and simple tests where libonnx-testdata is installed (each test's
# model.onnx, named after its folder).
file(MAKE_DIRECTORY ${OUT})
file(GLOB suite ${SOURCE}/tests/onnx/models/*.onnx)
foreach(model ${suite})
  get_filename_component(name ${model} NAME)
  file(COPY_FILE ${model} ${OUT}/suite_${name} ONLY_IF_DIFFERENT)
endforeach()
foreach(kind node simple pytorch-operator)
  file(GLOB tests LIST_DIRECTORIES true /usr/share/libonnx-testdata/data/${kind}/*)
  foreach(test ${tests})
    if(EXISTS ${test}/model.onnx)
      get_filename_component(name ${test} NAME)
      file(COPY_FILE ${test}/model.onnx ${OUT}/${kind}_${name}.onnx ONLY_IF_DIFFERENT)
    endif()
  endforeach()
endforeach()
