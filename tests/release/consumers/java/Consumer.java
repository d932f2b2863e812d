import org.gmlab.Gmlab;
import org.gmlab.Result;

/** A first program against the released jar: the library, the devices, a saved run read back. */
public class Consumer {
    public static void main(String[] args) {
        System.out.println("gmlab " + Gmlab.version() + " (ABI " + Gmlab.abiVersion() + "), "
            + Gmlab.deviceCount() + " device(s), " + Gmlab.experiments().size() + " experiments");
        String json = new String(readAll(args[0]), java.nio.charset.StandardCharsets.UTF_8);
        int n = Result.runResultCount(json);
        try (Result first = Result.fromRunJson(json, 0)) {
            System.out.println(args[0] + ": " + n + " results, the first " + first.experiment()
                + " with " + first.seriesCount() + " series");
        }
    }

    private static byte[] readAll(String path) {
        try {
            return java.nio.file.Files.readAllBytes(java.nio.file.Path.of(path));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
