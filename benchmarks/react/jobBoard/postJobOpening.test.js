import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './postJobOpening';

const fillForm = async () => {
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/job title/i), { target: { value: 'Site Reliability Engineer' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/salary/i), { target: { value: '85000' } });
  });
  await act(async () => { fireEvent.click(screen.getByLabelText(/remote/i)); });
};

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('posts a remote job opening', async () => {
  fetchMock.post('/api/jobs', { status: 201, body: { id: 501 } });

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByText(/post job/i)); });

  expect(fetchMock.calls('/api/jobs').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/jobs').body)).toEqual({
    title: 'Site Reliability Engineer',
    salary: 85000,
    remote: true,
  });
  expect(screen.getByText(/job posted/i)).toBeInTheDocument();
}, 10000);

test('shows an error when the job cannot be posted', async () => {
  fetchMock.post('/api/jobs', 500);

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByText(/post job/i)); });

  expect(fetchMock.calls('/api/jobs').length).toBe(1);
  expect(screen.getByText(/failed to post job/i)).toBeInTheDocument();
}, 10000);
