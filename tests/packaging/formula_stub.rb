# A stand-in for Homebrew's Formula class, just enough to load packaging/homebrew/wiredcap.rb,
# run its install and caveats, and print what they did as JSON (homebrew_formula_test.sh reads
# it). Not Homebrew: `brew audit` and a real `brew install` are not run on Linux.
#   ruby formula_stub.rb FORMULA PREFIX
require "json"
require "pathname"

class Formula
  class << self
    attr_reader :fields, :deps, :test_block

    def method_missing(name, *args, &block)
      return super unless %i[desc homepage url sha256 license].include?(name)

      (@fields ||= {})[name.to_s] = args.first
    end

    def respond_to_missing?(name, include_private = false)
      %i[desc homepage url sha256 license].include?(name) || super
    end

    def depends_on(spec)
      (@deps ||= []) << (spec.is_a?(Hash) ? spec.map { |k, v| "#{k}=>#{v}" }.join : spec.to_s)
    end

    def test(&block)
      @test_block = block
    end
  end

  attr_reader :systems

  def initialize(prefix)
    @prefix = Pathname(prefix)
    @systems = []
  end

  def prefix = @prefix
  def bin = @prefix/"bin"
  def libexec = @prefix/"libexec"
  def pkgshare = @prefix/"share/wiredcap"
  def std_cmake_args = ["-DCMAKE_INSTALL_PREFIX=#{@prefix}", "-DCMAKE_BUILD_TYPE=Release"]
  def system(*args) = @systems << args.map(&:to_s)
end

load ARGV.fetch(0)
f = Wiredcap.new(ARGV.fetch(1))
f.install
puts JSON.pretty_generate(
  "fields" => Wiredcap.fields,
  "deps" => Wiredcap.deps,
  "has_test" => !Wiredcap.test_block.nil?,
  "install" => f.systems,
  "helper_path" => f.helper_path.to_s,
  "caveats" => f.caveats
)
