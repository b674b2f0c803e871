# ASan + UBSan for the whole build: every binary, so the integration tests run sanitized too.
# UBSan aborts on the first report, so a finding fails the test rather than scrolling past.
if(WIREDCAP_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
