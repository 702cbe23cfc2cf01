import { useEffect, useState } from 'react';

export default function TopTracks() {
  const [tracks, setTracks] = useState([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = async () => {
      try {
        const response = await fetch('/api/artists/a9/top-tracks');
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setTracks(await response.json());
      } catch (err) {
        setError('Top tracks unavailable');
      } finally {
        setLoading(false);
      }
    };
    load();
  }, []);

  if (loading) return <p>Loading...</p>;
  if (error) return <p>{error}</p>;

  return (
    <ol>
      {tracks.map((track) => (
        <li key={track.id}>{track.title}</li>
      ))}
    </ol>
  );
}
