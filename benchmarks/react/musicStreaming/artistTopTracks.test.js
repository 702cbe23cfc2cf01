import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import TopTracks from './TopTracks';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test("lists the artist's top tracks in order", async () => {
  fetchMock.get('/api/artists/a9/top-tracks', [
    { id: 't1', title: 'Glass Harbor', plays: 1200000 },
    { id: 't2', title: 'Paper Moons', plays: 860000 },
    { id: 't3', title: 'Low Tide', plays: 410000 },
  ]);

  await act(async () => { render(<TopTracks />); });

  expect(fetchMock.called('/api/artists/a9/top-tracks')).toBe(true);
  await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(3));
  const items = screen.getAllByRole('listitem');
  expect(items[0]).toHaveTextContent('Glass Harbor');
  expect(items[1]).toHaveTextContent('Paper Moons');
  expect(items[2]).toHaveTextContent('Low Tide');
}, 10000);

test('shows that top tracks are unavailable when the request fails', async () => {
  fetchMock.get('/api/artists/a9/top-tracks', 500);

  await act(async () => { render(<TopTracks />); });

  expect(fetchMock.called('/api/artists/a9/top-tracks')).toBe(true);
  await waitFor(() => expect(screen.getByText(/top tracks unavailable/i)).toBeInTheDocument());
  expect(screen.queryByText(/loading/i)).not.toBeInTheDocument();
}, 10000);
