/* A host in C (C99), through <shapescript/shapescript.h>: loads a program,
 * makes one of its models, calls a function on it and prints what it
 * returned, or the library's coded error.
 *
 *   c_host_example FILE MODEL FUNCTION
 *
 * What the user leaves out is passed on as NULL, and the library answers
 * a null pointer it needs with E1612, as it answers every other mistake
 * with its code: the host never crashes on it. */
#include <shapescript/shapescript.h>
#include <stdio.h>

static int fail(ss_status* status) {
  fputs(ss_status_render(status), stderr);
  ss_status_free(status);
  return 1;
}

int main(int argc, char** argv) {
  const char* file = argc > 1 ? argv[1] : NULL;
  const char* model_type = argc > 2 ? argv[2] : NULL;
  const char* function = argc > 3 ? argv[3] : NULL;
  ss_status* status = NULL;
  ss_engine* engine = ss_engine_new(NULL, &status);
  if (!engine) return fail(status);
  ss_module* module = ss_engine_load_file(engine, file, NULL, &status);
  ss_value* model = NULL;
  ss_call_result* result = NULL;
  if (module) status = ss_module_make(module, model_type, 0, &model);
  if (!status) {
    const ss_arg args[1] = {ss_arg_value(model)};
    status = ss_module_call_values(module, function, args, 1, &result);
  }
  int code = 0;
  if (status) {
    code = fail(status);
  } else {
    for (size_t i = 0; i < ss_call_result_value_count(result); ++i) {
      ss_value* v = ss_call_result_value(result, i);
      printf("%s = %g\n", ss_value_type(v), ss_value_number(v));
      ss_value_free(v);
    }
  }
  ss_call_result_free(result);
  ss_value_free(model);
  ss_module_free(module);
  ss_engine_free(engine);
  return code;
}
