import { useEffect, useState } from 'react';

const TRACK_ID = 't42';

export default function AddSongToPlaylist() {
  const [playlists, setPlaylists] = useState([]);
  const [message, setMessage] = useState('');

  useEffect(() => {
    fetch('/api/playlists')
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then(setPlaylists)
      .catch(() => setMessage('Could not load playlists'));
  }, []);

  const addTo = async (playlist) => {
    try {
      const response = await fetch(`/api/playlists/${playlist.id}/tracks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ trackId: TRACK_ID }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setMessage(`Added to ${playlist.name}`);
    } catch (err) {
      setMessage('Could not add song');
    }
  };

  return (
    <div>
      <p>Now playing: Midnight City</p>
      {playlists.map((playlist) => (
        <button key={playlist.id} onClick={() => addTo(playlist)}>
          {`Add to ${playlist.name}`}
        </button>
      ))}
      {message && <p role="status">{message}</p>}
    </div>
  );
}
